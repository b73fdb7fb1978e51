package feedback

import (
	"bytes"
	"io"
	"regexp"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// DefaultBypassPattern is the orchestration skills' names as the
// transcript shows them: an orchestration runs its own review and test
// loop, so the feedback loop stands aside.
const DefaultBypassPattern = `orchestrating-feature|orchestrating-capability`

// maxScanBytes bounds how much of a transcript one hook reads; the rest is
// read by the next hooks, from where this one stopped.
const maxScanBytes = 8 << 20

// ScanTranscript searches the transcript at path for re, from byte offset
// from, over complete lines only, and returns the first match and the
// offset to continue from next time (after the last complete line read).
// A transcript that shrank (rewritten) is read again from the start; a
// line longer than the read cap is skipped. Only regular files are read.
func ScanTranscript(path string, from int64, re *regexp.Regexp) (match string, next int64, err error) {
	f, fi, err := safefs.Open(path)
	if err != nil {
		return "", from, err
	}
	defer f.Close()
	if fi.Size() < from {
		from = 0
	}
	if fi.Size() == from {
		return "", from, nil
	}
	data := make([]byte, min(fi.Size()-from, maxScanBytes))
	n, err := f.ReadAt(data, from)
	if err != nil && err != io.EOF {
		return "", from, err
	}
	data = data[:n]
	cut := bytes.LastIndexByte(data, '\n')
	if cut < 0 {
		if n == maxScanBytes {
			return "", from + int64(n), nil // one huge line: skip it
		}
		return "", from, nil // an incomplete line: the next hook reads it whole
	}
	next = from + int64(cut) + 1
	if m := re.Find(data[:cut+1]); m != nil {
		return string(m), next, nil
	}
	return "", next, nil
}
