package logs

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// streamBuf is the read buffer of Stream (pooled: the export streams many
// logs at once).
const streamBuf = 256 << 10

var streamPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, streamBuf) }}

// errLayout says a log is not in spcstr's one-entry-per-line layout.
var errLayout = errors.New("not one entry per line")

// Stream delivers every entry of the log at path to fn, in file order,
// reading the file once. It is the fast whole-log reader: for spcstr's
// layout it only splits lines, and raw (one line without its separator)
// is neither validated nor copied, so it is valid only during the call and
// may be malformed when the file is damaged. A torn last line is skipped.
//
// A file in another JSON array layout is recognised at its first line that
// is not one entry; Stream then calls restart (the caller drops what it
// gathered) and delivers the whole file again through Scan. fn may return
// ErrStop to end early. A missing log has no entries.
func Stream(path string, restart func(), fn func(raw []byte) error) error {
	err := streamLines(path, fn)
	if errors.Is(err, errLayout) {
		restart()
		err = ScanFile(path, fn)
	}
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func streamLines(path string, fn func(raw []byte) error) error {
	fh, err := openForRead(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer fh.Close()
	br := streamPool.Get().(*bufio.Reader)
	br.Reset(fh)
	defer func() { br.Reset(nil); streamPool.Put(br) }()
	var long []byte // a line longer than the buffer
	for {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = long[:0:0]
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return rerr
		}
		last := rerr != nil
		entry := trimEntry(line)
		switch {
		case len(entry) == 0:
		case entry[0] == '{' && entry[len(entry)-1] == '}':
			if err := fn(entry); err != nil {
				return err
			}
		case len(entry) == 1 && (entry[0] == '[' || entry[0] == ']'):
		case last:
			// torn tail
		default:
			return errLayout
		}
		if last {
			return nil
		}
	}
}

// trimEntry strips the whitespace and the separating comma around one line.
func trimEntry(b []byte) []byte {
	b = bytes.TrimSpace(b)
	b = bytes.TrimSuffix(b, []byte(","))
	b = bytes.TrimPrefix(b, []byte(","))
	return bytes.TrimSpace(b)
}
