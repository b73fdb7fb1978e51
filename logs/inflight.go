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
	"syscall"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// RepairInterrupted mends the logs in dir whose append was interrupted
// (a hook killed mid-write): each in-flight marker whose log nobody holds
// locked. It costs one read of a folder that is empty unless an append is
// under way or was killed, so every hook can call it whatever the logs'
// size and number.
func RepairInterrupted(ctx context.Context, dir string) error {
	// One lstat: a folder's link count is 2 plus its subfolders (the
	// markers) on the usual Linux file systems; anything else (another
	// count, another system) takes the full look.
	if fi, err := os.Lstat(filepath.Join(dir, InflightDir)); err != nil || (fi.IsDir() && emptyDir(fi)) {
		return nil
	}
	root, rel, err := safefs.Beneath(filepath.Join(dir, InflightDir))
	if err != nil {
		return nil // no logs folder yet
	}
	defer root.Close()
	mf, err := root.Open(rel)
	if err != nil {
		return nil // no marker folder: nothing was ever interrupted
	}
	names, err := mf.Readdirnames(-1)
	mf.Close()
	if err != nil || len(names) == 0 {
		return err
	}
	logsRel := filepath.Dir(rel)
	var errs []error
	for _, name := range names {
		logRel := filepath.Join(logsRel, name)
		lf, err := root.OpenFile(lockName(logRel), os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// A zero timeout: a log someone holds is being appended to by a
		// live hook, whose own marker it is.
		if safefs.LockFile(ctx, lf, false, 0) != nil {
			lf.Close()
			continue
		}
		marker := markerName(logRel)
		if _, err := root.Lstat(marker); err == nil {
			repaired, err := repairLocked(root, logRel)
			if err == nil {
				_ = root.Remove(marker)
			}
			lf.Close()
			if err != nil {
				errs = append(errs, fmt.Errorf("repair %s: %w", name, err))
				continue
			}
			noteRepair(ctx, root, logRel, repaired, Options{NoRepairLog: name == Name(Repairs, "")+Ext})
			continue
		}
		lf.Close()
	}
	return errors.Join(errs...)
}

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
