package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// UpdateOptions tune Update. The zero value keeps DefaultKeep entries and
// decodes the whole state.
type UpdateOptions struct {
	// Keep bounds the lists (see Session.Bound); ≤ 0 means DefaultKeep.
	Keep int
	// Lazy lists the sections fn does not read and changes only by
	// appending (see Section); they are left encoded when the file allows.
	Lazy Section
}

// maxStateBytes bounds how much of a state.json is read: a bounded state
// is far smaller, so anything larger is not one of ours.
const maxStateBytes = 64 << 20

// Update is the one way a session's state changes: under the session's
// exclusive lock it loads state.json (or starts a new state when there is
// none, or when the file was corrupt and has been set aside), calls fn,
// bounds the result (Session.Bound) and writes it atomically. created
// tells fn that the state is new. Parallel hooks of one session therefore
// never lose an update.
func (l Layout) Update(ctx context.Context, id string, now time.Time, opt UpdateOptions, fn func(s *Session, created bool) error) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	unlock, err := jsonfile.Lock(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var s Session
	fresh, readErr := false, read(path, &s, AllSections&^opt.Lazy)
	switch {
	case readErr == nil:
	case errors.Is(readErr, fs.ErrNotExist):
		fresh, readErr = true, nil
	case errors.Is(readErr, jsonfile.ErrCorrupt):
		fresh = true
	default:
		return nil, readErr
	}
	if fresh {
		s = *New(id, l.Root, now)
		if readErr != nil {
			s.Errors = append(s.Errors, Error{
				Timestamp: now, Type: ErrorSpcstr,
				Message: fmt.Sprintf("state.json could not be read and was set aside; this session's earlier state is in that file (spcstr rebuild %s restores it from the logs): %v", id, readErr),
			})
		}
	}
	s.Normalize()
	s.markDropped()
	// A file that parses but lacks the basics ("{}", "null", a hand
	// edit) is completed: the folder names the session.
	s.SessionID = id
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.ProjectDir == "" {
		s.ProjectDir = l.Root
	}
	if err := fn(&s, fresh); err != nil {
		return nil, err
	}
	if err := s.merge(); err != nil {
		return nil, err
	}
	s.Bound(opt.Keep)
	s.Version = SchemaVersion
	pieces, err := s.encode()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	if err := writeState(path, pieces); err != nil {
		return nil, err
	}
	return &s, nil
}

// read loads path into s, decoding the sections in need (all of them for a
// file not in the sectioned layout). A file that is not a regular file of
// at most maxStateBytes, or does not parse, is set aside and reported
// with jsonfile.ErrCorrupt.
func read(path string, s *Session, need Section) error {
	data, err := readRegular(path)
	if err == nil {
		var ok bool
		ok, err = decodeSectioned(data, s, need)
		if !ok {
			*s = Session{}
			err = jsonfile.Decode(data, s)
		}
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	aside := jsonfile.SetAsideName(path, time.Now())
	if rerr := os.Rename(path, aside); rerr != nil {
		return fmt.Errorf("%w: %s: %v (and could not set it aside: %v)", jsonfile.ErrCorrupt, path, err, rerr)
	}
	return fmt.Errorf("%w: %s set aside as %s: %v", jsonfile.ErrCorrupt, path, filepath.Base(aside), err)
}

var errNotRegular = errors.New("not a regular file")

// readRegular reads a regular file of at most maxStateBytes without
// following a symlink or blocking on a FIFO.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	if fi.Size() > maxStateBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxStateBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the file's size (plus one byte to notice growth):
	// on a VM where each fresh page costs a fault, growing a buffer by
	// doubling would touch several times the file's size.
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return buf[:n], nil
	}
	if err != nil {
		return nil, err
	}
	rest, err := io.ReadAll(io.LimitReader(f, maxStateBytes))
	return append(buf, rest...), err
}

// writeState replaces path with the concatenated pieces atomically (temp file in the same
// folder, then rename), without an fsync: state.json is a cache of the
// logs, which are the durable record (see spcstr rebuild).
func writeState(path string, pieces [][]byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	var werr error
	for _, p := range pieces {
		if _, werr = f.Write(p); werr != nil {
			break
		}
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// Load reads one session's state without locking: state.json is always
// replaced whole, so a reader sees a complete document. A damaged file is
// reported, not moved (only writers set files aside).
func (l Layout) Load(id string) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	data, err := safefs.ReadFile(path, safefs.MaxStateBytes)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := jsonfile.Decode(data, &s); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", jsonfile.ErrCorrupt, path, err)
	}
	s.Normalize()
	return &s, nil
}

// SessionIDs lists the sessions that have a folder under .spcstr/sessions,
// skipping names that are not valid session ids.
func (l Layout) SessionIDs() ([]string, error) {
	entries, err := os.ReadDir(l.SessionsDir())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidSessionID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}
