//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// hookRun feeds one session's events to the real binary, growing a
// transcript as a live session would.
type hookRun struct {
	bin, root, session, transcript string
	events                         []map[string]any
	chunks                         [][]byte
	env                            []string
	args                           []string
	// rssFile is set when bin is peakrss: the hook's peak RSS is read
	// from it (the kernel's figure for a direct child is the
	// benchmark's own peak).
	rssFile string
}

// measured runs the hook through peakrss, which reports its real peak RSS.
func (h *hookRun) measured(peakrss, rssFile string) *hookRun {
	m := *h
	m.bin, m.rssFile = peakrss, rssFile
	m.args = append([]string{rssFile, h.bin}, h.args...)
	return &m
}

func newHookRun(bin, root string, events []map[string]any, transcript []byte, session string) *hookRun {
	lines := bytes.SplitAfter(transcript, []byte("\n"))
	per := len(lines)/len(events) + 1
	var chunks [][]byte
	for i := 0; i < len(lines); i += per {
		end := min(i+per, len(lines))
		chunks = append(chunks, bytes.Join(lines[i:end], nil))
	}
	return &hookRun{
		bin: bin, root: root, session: session, events: events, chunks: chunks,
		transcript: filepath.Join(root, "transcript-"+session+".jsonl"),
		args:       nil, // spcstr-hook; set {"hook"} for spcstr
		env: append(os.Environ(), "CLAUDE_PROJECT_DIR="+root,
			"SPCSTR_REGISTRY="+filepath.Join(root, "registry.json"), "CLAUDE_PID="+strconv.Itoa(os.Getpid())),
	}
}

func (h *hookRun) next(i int) (time.Duration, int64, error) {
	k := i % len(h.events)
	if k == 0 {
		_ = os.Remove(h.transcript) // a new pass over the session: start the transcript again
	}
	if k < len(h.chunks) {
		f, err := os.OpenFile(h.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, _ = f.Write(h.chunks[k])
			f.Close()
		}
	}
	p := payload(h.events[k], h.root, h.session, h.transcript)
	d, rss, err := exe(h.bin, h.args, p, h.env)
	if err != nil {
		return 0, 0, fmt.Errorf("spcstr hook: %w", err)
	}
	if h.rssFile != "" {
		if rss, err = readRSS(h.rssFile); err != nil {
			return 0, 0, err
		}
	}
	return d, rss, nil
}

func readRSS(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("peakrss: %w", err)
	}
	return strconv.ParseInt(string(data), 10, 64)
}

// exe runs bin with stdin and returns its wall time and peak RSS (KiB).
func exe(bin string, args []string, stdin any, env []string) (time.Duration, int64, error) {
	var in []byte
	switch v := stdin.(type) {
	case []byte:
		in = v
	case map[string]any:
		in, _ = json.Marshal(v)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		return 0, 0, fmt.Errorf("unexpected stderr: %s", stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return d, rss, nil
}

// peakRSS runs n more hooks of each run through peakrss and returns their
// peak RSS figures (KiB, sorted) and peakrss's own (running /bin/true),
// the floor under every figure.
func peakRSS(peakrss, tmp string, runs []*hookRun, n int) ([]int64, int64, error) {
	out := filepath.Join(tmp, "rss")
	var rss []int64
	for _, h := range runs {
		m := h.measured(peakrss, out)
		m.session += "-rss"
		for i := 0; i < n; i++ {
			_, r, err := m.next(i)
			if err != nil {
				return nil, 0, err
			}
			rss = append(rss, r)
		}
	}
	if _, _, err := exe(peakrss, []string{out, "/bin/true"}, nil, nil); err != nil {
		return nil, 0, err
	}
	launcher, err := readRSS(out)
	if err != nil {
		return nil, 0, err
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	return rss, launcher, nil
}
