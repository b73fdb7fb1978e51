package logs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// RepairInterrupted mends the logs in dir whose append was interrupted (a
// hook killed mid-write): each log whose in-flight slot (SlotsFile) or
// marker (InflightDir) is set while nobody holds the log's lock. When no
// append is under way or was killed it costs one read of the small slots
// file and one lstat of the marker folder (six system calls), so every hook
// can call it whatever the logs' size and number. A slots file that is not
// one is ignored (the next append replaces it); work is bounded by the
// number of slots.
func RepairInterrupted(ctx context.Context, dir string) error {
	var slots [slotsSize]byte
	set := readSlots(dir, &slots) && slices.ContainsFunc(slots[:len(slotNames)], func(b byte) bool { return b != 0 })
	// Marker folders: logs without a slot, and projects recorded by an
	// older spcstr. One lstat: a folder's link count is 2 plus its
	// subfolders (the markers) on the usual Linux file systems; anything
	// else (another count, another system) takes the full look.
	fi, err := os.Lstat(filepath.Join(dir, InflightDir))
	markers := err == nil && !(fi.IsDir() && emptyDir(fi))
	if !set && !markers {
		return nil
	}
	root, rel, err := safefs.Beneath(filepath.Join(dir, SlotsFile))
	if err != nil {
		return nil // no logs folder
	}
	defer root.Close()
	logsRel := filepath.Dir(rel)
	var errs []error
	if set {
		// A slot beyond slotNames is a newer spcstr's (or noise): it has
		// no name here.
		for i, v := range slots[:len(slotNames)] {
			if v != 0 {
				errs = append(errs, repairSlot(ctx, root, logsRel, i))
			}
		}
	}
	if markers {
		errs = append(errs, repairMarkers(ctx, root, logsRel))
	}
	return errors.Join(errs...)
}

// repairSlot mends the log of slot i if its slot is still set once its lock
// is taken (SlotsFile says why that means its appender was killed), and
// clears the slot. A lock held by someone else means a live append: the
// slot is theirs and is left alone.
func repairSlot(ctx context.Context, root *os.Root, logsRel string, i int) error {
	name := slotNames[i] + Ext
	logRel := filepath.Join(logsRel, name)
	unlock, ok, err := safefs.TryLock(root, lockName(logRel))
	if err != nil || !ok {
		return err
	}
	sf, err := openSlots(root, logRel)
	if err != nil {
		unlock()
		return fmt.Errorf("repair %s: %w", name, err)
	}
	var b [1]byte
	if _, err := sf.ReadAt(b[:], int64(i)); err != nil || b[0] == 0 {
		// Cleared by an appender that finished after the unlocked read.
		sf.Close()
		unlock()
		return nil
	}
	repaired, err := repairLocked(root, logRel)
	if err == nil {
		err = setSlot(sf, i, 0)
	}
	sf.Close()
	unlock()
	if err != nil {
		return fmt.Errorf("repair %s: %w", name, err)
	}
	noteRepair(ctx, root, logRel, repaired, Options{NoRepairLog: name == Name(Repairs, "")+Ext})
	return nil
}

// repairMarkers mends the logs whose marker folder is in logsRel's
// InflightDir while nobody holds their lock, and removes the marker.
func repairMarkers(ctx context.Context, root *os.Root, logsRel string) error {
	mf, err := root.Open(filepath.Join(logsRel, InflightDir))
	if err != nil {
		return nil // no marker folder: nothing was ever interrupted
	}
	names, err := mf.Readdirnames(maxMarkers)
	mf.Close()
	if err != nil || len(names) == 0 {
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return err
	}
	var errs []error
	for _, name := range names {
		logRel := filepath.Join(logsRel, name)
		// A log someone holds is being appended to by a live hook, whose
		// own marker it is.
		unlock, ok, err := safefs.TryLock(root, lockName(logRel))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue
		}
		marker := markerName(logRel)
		if _, err := root.Lstat(marker); err == nil {
			repaired, err := repairLocked(root, logRel)
			if err == nil {
				_ = root.Remove(marker)
			}
			unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("repair %s: %w", name, err))
				continue
			}
			noteRepair(ctx, root, logRel, repaired, Options{NoRepairLog: name == Name(Repairs, "")+Ext})
			continue
		}
		unlock()
	}
	return errors.Join(errs...)
}

// maxMarkers bounds the markers one hook looks at: a planted folder of
// thousands costs a few hooks a bounded share each.
const maxMarkers = 64

// repairLocked makes the log at rel whole again without adding an entry.
func repairLocked(root *os.Root, rel string) (dropped []byte, err error) {
	f, fi, err := openLog(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := fi.Size()
	if size == 0 {
		return nil, root.Remove(rel)
	}
	if isArray, sure, err := startsArray(f, size); err != nil || (sure && !isArray) {
		return nil, err // not a log: the next append sets it aside
	}
	if _, _, ok, err := findClose(f, size); err != nil || ok {
		return nil, err
	}
	cut, empty, ok, err := findLastComplete(f, size)
	if err != nil || !ok {
		return nil, err
	}
	dropped = make([]byte, size-cut)
	if _, err := f.ReadAt(dropped, cut); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read torn tail: %w", err)
	}
	_ = empty
	if err := writeTail(f, cut, size, nil, "\n]\n"); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(dropped), nil
}

// inflight is an append's in-flight mark (SlotsFile): its slot when the
// log has one, else a marker folder.
type inflight struct {
	root   *os.Root
	slots  *os.File
	slot   int
	marker string
}

// markInflight marks the append to rel as under way. The caller holds the
// log's lock.
func markInflight(root *os.Root, rel string) inflight {
	if i := slotOf(filepath.Base(rel)); i >= 0 {
		if f, err := openSlots(root, rel); err == nil {
			if setSlot(f, i, 1) == nil {
				return inflight{slots: f, slot: i}
			}
			f.Close()
		}
		// No usable slots file: a marker folder does the same job.
	}
	marker := markerName(rel)
	if err := root.Mkdir(marker, 0o755); errors.Is(err, fs.ErrNotExist) {
		_ = root.Mkdir(filepath.Dir(marker), 0o755)
		_ = root.Mkdir(marker, 0o755)
	}
	return inflight{root: root, marker: marker}
}

// clear marks the append as whole; the caller still holds the lock.
func (m inflight) clear() {
	if m.slots != nil {
		_ = setSlot(m.slots, m.slot, 0)
		return
	}
	_ = m.root.Remove(m.marker)
}

func (m inflight) close() {
	if m.slots != nil {
		m.slots.Close()
	}
}
