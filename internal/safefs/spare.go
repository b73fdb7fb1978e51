package safefs

import (
	"os"
	"path/filepath"
)

// SpareSuffix ends the name of the spare file ReplaceViaSpare keeps beside
// a document: "." + the document's name + SpareSuffix
// (".state.json.spare"). It is neither a temporary file nor a leftover.
const SpareSuffix = ".spare"

// SpareName is the name of the spare file of the document name (a path
// below a root; the spare is in the same folder).
func SpareName(name string) string {
	dir, base := filepath.Split(name)
	return dir + spareBase(base)
}

func spareBase(base string) string { return "." + base + SpareSuffix }

// ReplaceViaSpare replaces name below root with data, like Replace without
// fsync, but reuses one spare file instead of creating a new one each time.
// The caller must hold a lock that serialises every writer of name (the
// spare has a fixed name).
//
// On Linux the data is written into the spare (created if missing,
// overwritten in place and cut to length) and the spare is then swapped
// with name in one renameat2(RENAME_EXCHANGE): name holds the new document,
// the spare the previous one, to be overwritten next time. Nothing is freed
// or flushed, which makes it about ten times cheaper than a new temp file
// renamed over the old document on ext4 (where the rename frees the old
// file's blocks and auto_da_alloc flushes the new one). A reader sees the
// old document or the new one, and a writer killed at any point leaves
// name whole. A spare that is not a regular file with one link owned by
// this user (a planted symlink, FIFO, folder or hard link) is removed and
// created again, never written through. Where the swap is not supported
// (some file systems), the written spare is renamed over name; on other
// systems this is Replace.
//
// Because the previous document's file is rewritten by the next write, a
// reader that still has it open can read a mix: read such a document with
// ReadReplaced.
func ReplaceViaSpare(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return replaceViaSpare(root, name, [][]byte{data}, perm)
}

// ReplaceViaSpareV is ReplaceViaSpare for a document given as pieces to
// write in order (one pwritev on Linux): a large document is never joined
// into one more buffer, whose fresh pages would each cost the caller a
// page fault.
func ReplaceViaSpareV(root *os.Root, name string, pieces [][]byte, perm os.FileMode) error {
	return replaceViaSpare(root, name, pieces, perm)
}

// replacedReadTries bounds how often ReadReplaced reads again.
const replacedReadTries = 3

// ReadReplaced is ReadFile for a document written by ReplaceViaSpare,
// read without the writers' lock. A read is kept only if, once it is done,
// the path still names the file that was read and that file's size and
// modification time did not change; otherwise a writer may have reused the
// file mid-read and it is read again (up to three times, then the last read
// is returned: the caller's parser rejects a mix).
func ReadReplaced(path string, max int64) ([]byte, error) {
	for try := 1; ; try++ {
		f, fi, err := Open(path)
		if err != nil {
			return nil, err
		}
		data, err := readAll(f, fi, path, max)
		after, serr := f.Stat()
		f.Close()
		if err != nil {
			return nil, err
		}
		now, nerr := os.Stat(path)
		if serr == nil && nerr == nil && unchanged(fi, after, now, len(data)) || try == replacedReadTries {
			return data, nil
		}
	}
}

// unchanged reports whether a read of n bytes from the file opened with
// info before, whose info was after once read, is that file's content as
// path (now) names it.
func unchanged(before, after, now os.FileInfo, n int) bool {
	return os.SameFile(before, now) && int64(n) == before.Size() &&
		after.Size() == before.Size() && after.ModTime().Equal(before.ModTime())
}
