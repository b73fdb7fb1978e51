package logs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// ObservabilityFile is the name of a session's observability log in its
// folder, .spcstr/sessions/<id>/ (docs/observability.md). Unlike the logs
// in .spcstr/logs it is JSON Lines: one event per line, appended with
// O_APPEND and never rewritten (a torn last line is cut off first, kept in
// <name>.torn).
const ObservabilityFile = "observability.jsonl"

// MaxLinesBytes caps how much of a JSON Lines log a reader reads.
const MaxLinesBytes = 256 << 20

// maxLine caps one line of a JSON Lines log; a longer line is skipped.
const maxLine = 4 << 20

// AppendLines appends lines (one or more JSON values, each ending in "\n")
// to the JSON Lines log at path in a single write. The file is opened
// below the nearest .spcstr folder (nothing below it is followed out of
// it), without blocking on a FIFO, and only used if it is a regular file:
// anything else found at path is set aside as <name>.corrupt-<time> and a
// new log is started. A tail left without its newline by a killed writer
// is cut off under the log's lock and kept in <name>.torn (TornSuffix);
// when that cannot be done it stays a line of its own: the append starts
// with a newline then.
func AppendLines(path string, lines []byte) error {
	if len(lines) == 0 {
		return nil
	}
	if lines[len(lines)-1] != '\n' {
		return errors.New("logs: lines must end in a newline")
	}
	root, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := openLines(root, rel)
	if errors.Is(err, safefs.ErrNotRegular) {
		if rerr := root.Rename(rel, jsonfile.SetAsideName(rel, time.Now())); rerr != nil {
			return fmt.Errorf("set aside %s: %w", rel, rerr)
		}
		f, err = openLines(root, rel)
	}
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	// Appenders take the file's lock, so that a torn tail (a writer
	// killed, or a disk that filled, mid-line) can be cut off safely:
	// nobody else is writing. Without the lock (a timeout), the append
	// starts on a new line instead and the fragment stays a line of its
	// own, which readers skip.
	locked := safefs.LockFile(context.Background(), f, false, lineLockTimeout) == nil
	// A rewrite (RewriteLines, doctor --fix) may have replaced the file
	// while this append waited for the lock: append to the one now there.
	for tries := 0; locked && tries < 64 && !stillAt(root, rel, f); tries++ {
		f.Close()
		if f, err = openLines(root, rel); err != nil {
			return err
		}
		locked = safefs.LockFile(context.Background(), f, false, lineLockTimeout) == nil
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil && last[0] != '\n' {
			if !locked || !cutTornLine(root, rel, f, fi.Size()) {
				lines = append([]byte{'\n'}, lines...)
			}
		}
	}
	if _, err := f.Write(lines); err != nil {
		return fmt.Errorf("append %s: %w", rel, err)
	}
	return nil
}

// stillAt reports whether f is still the file at rel.
func stillAt(root *os.Root, rel string, f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	at, err := root.Lstat(rel)
	return err == nil && os.SameFile(fi, at)
}

// RewriteLines replaces the JSON Lines log at path with what edit makes of
// its contents (nil: leave it), atomically and under the lock its
// appenders take, so that no line appended meanwhile is lost: an append
// that waited for the lock finds the new file and appends to it. It reads
// only a regular file, at most MaxLinesBytes.
func RewriteLines(path string, edit func(data []byte) ([]byte, error)) error {
	root, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := openLines(root, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := safefs.LockFile(context.Background(), f, false, rewriteLockTimeout); err != nil {
		return fmt.Errorf("rewrite %s: %w", rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > MaxLinesBytes {
		return fmt.Errorf("rewrite %s: over %d bytes", rel, MaxLinesBytes)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	keep, err := edit(data)
	if err != nil || keep == nil {
		return err
	}
	return safefs.WriteAtomic(root, rel, keep, 0o644)
}

// rewriteLockTimeout bounds RewriteLines' wait for the log's lock.
const rewriteLockTimeout = 10 * time.Second

// lineLockTimeout bounds the wait for a JSON Lines log's lock.
const lineLockTimeout = 2 * time.Second

// TornSuffix names the file beside a JSON Lines log that keeps the torn
// lines cut off it (observability.jsonl.torn).
const TornSuffix = ".torn"

// cutTornLine cuts the torn last line of the locked log f (size bytes) off,
// keeping it in <rel>.torn, as the event logs' torn tails are cut (and
// kept in repairs.json). It reports false when it could not (the line is
// longer than a line may be, or a write failed): the caller then starts
// on a new line.
func cutTornLine(root *os.Root, rel string, f *os.File, size int64) bool {
	window := min(size, int64(maxLine))
	buf := make([]byte, window)
	if _, err := f.ReadAt(buf, size-window); err != nil {
		return false
	}
	i := bytes.LastIndexByte(buf, '\n')
	if i < 0 && window < size {
		return false
	}
	cut := size - window + int64(i+1)
	torn := append(buf[i+1:], '\n')
	tf, err := root.OpenFile(rel+TornSuffix, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return false
	}
	_, werr := tf.Write(torn)
	if cerr := tf.Close(); werr != nil || cerr != nil {
		return false
	}
	return f.Truncate(cut) == nil
}

// openLines opens (or creates) a JSON Lines log for appending, only if it
// is a regular file.
func openLines(root *os.Root, rel string) (*os.File, error) {
	f, err := root.OpenFile(rel, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) {
			return nil, fmt.Errorf("open %s: %w", rel, safefs.ErrNotRegular)
		}
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", rel, safefs.ErrNotRegular)
	}
	return f, nil
}

// ScanLines calls fn with each complete line of the JSON Lines log at path
// (without its newline; blank lines skipped), in order; line is only
// valid during the call. It reads only a
// regular file, at most MaxLinesBytes of it; a line over 4 MiB or one
// without its final newline (a torn tail) is skipped. Whether a line is
// valid JSON is the caller's to check. A missing file is an error wrapping
// fs.ErrNotExist.
func ScanLines(path string, fn func(line []byte) error) error {
	f, _, err := safefs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return scanLines(io.LimitReader(f, MaxLinesBytes), path, false, fn)
}

// TailLines is ScanLines over at most the last window bytes of the log
// (a line cut by the window's start is skipped): the newest events of a
// long log without reading it whole.
func TailLines(path string, window int64, fn func(line []byte) error) error {
	f, fi, err := safefs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	off := max(fi.Size()-window, 0)
	skip := false
	if off > 0 {
		var b [1]byte
		_, err := f.ReadAt(b[:], off-1)
		skip = err != nil || b[0] != '\n'
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return scanLines(io.LimitReader(f, window), path, skip, fn)
}

// scanLines calls fn with each complete line of r, skipping the first one
// when skip is set.
func scanLines(rd io.Reader, path string, skip bool, fn func(line []byte) error) error {
	r := bufio.NewReaderSize(rd, 64<<10)
	var (
		long    []byte
		tooLong bool
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if tooLong = tooLong || len(long)+len(chunk) > maxLine; !tooLong {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		complete := err == nil
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
		}
		if skip {
			skip = false
		} else if complete && !tooLong && len(line) <= maxLine {
			if l := bytes.TrimSpace(line); len(l) > 0 {
				if ferr := fn(l); ferr != nil {
					return ferr
				}
			}
		}
		if !complete {
			return nil
		}
		long, tooLong = long[:0], false
	}
}
