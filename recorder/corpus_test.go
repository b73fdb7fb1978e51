package recorder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/logs"
)

// corpusItem is one hook payload of a corpus: the bundled sample
// (testdata/captures and testdata/corpus) or the optional third-party
// corpus (see sharedCorpus).
type corpusItem struct {
	file    string
	index   int
	payload []byte
	// event is the EVENT argument a per-event registration would pass
	// (the logger's file name), "" when the file does not name one.
	event string
}

// loadCorpus reads every payload of the files in dirs: JSON arrays, JSON
// Lines, and one object keyed by case name. Entries wrapped by a logger
// (or a capture record) are unwrapped to the object holding
// hook_event_name; entries without one are fed as they are. Transcript
// dumps (chat.json, *.jsonl transcript lines) are not payloads. It returns
// the payloads and the number of files they came from.
func loadCorpus(t testing.TB, dirs ...string) ([]corpusItem, int) {
	t.Helper()
	var items []corpusItem
	files := 0
	for _, dir := range dirs {
		its, n := loadCorpusDir(t, dir)
		items, files = append(items, its...), files+n
	}
	return items, files
}

func loadCorpusDir(t testing.TB, dir string) ([]corpusItem, int) {
	t.Helper()
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var items []corpusItem
	files := 0
	for _, de := range names {
		name := de.Name()
		if de.IsDir() || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, "chat.json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var elems []json.RawMessage
		if strings.HasSuffix(name, ".jsonl") {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
					elems = append(elems, append(json.RawMessage(nil), line...))
				}
			}
			if isTranscript(elems) {
				continue
			}
		} else if err := json.Unmarshal(data, &elems); err != nil {
			var obj map[string]json.RawMessage
			if err2 := json.Unmarshal(data, &obj); err2 != nil {
				t.Fatalf("%s is neither a JSON array nor an object: %v", name, err)
			}
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				elems = append(elems, obj[k])
			}
		}
		files++
		event := ""
		if i := strings.LastIndex(name, "__"); i >= 0 {
			if ev := strings.TrimSuffix(name[i+2:], ".json"); hookio.IsKnown(ev) {
				event = ev
			}
		}
		for i, e := range elems {
			payload := []byte(e)
			if inner := findPayload(e, 0); inner != nil {
				payload = inner
			}
			items = append(items, corpusItem{file: name, index: i, payload: payload, event: event})
		}
	}
	return items, files
}

// bundledCorpus is the sample every run feeds: the payloads real Claude
// Code sent in the recorded scenarios, and hand-made edge cases.
func bundledCorpus(t testing.TB) []corpusItem {
	t.Helper()
	items, files := loadCorpus(t, filepath.Join("testdata", "captures"), filepath.Join("testdata", "corpus"))
	if files < 7 || len(items) < 150 {
		t.Fatalf("bundled corpus looks incomplete: %d files, %d payloads", files, len(items))
	}
	return items
}

// sharedCorpus returns the third-party corpus of 6,675 real payloads when
// it is present: $SPCSTR_SHARED/corpus, else shared/corpus beside the
// repository. It is not part of the repository; "" when absent.
func sharedCorpus(t testing.TB) string {
	t.Helper()
	d := os.Getenv("SPCSTR_SHARED")
	if d == "" {
		root, err := testshared.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		d = filepath.Join(root, "..", "shared")
	}
	d = filepath.Join(filepath.Clean(d), "corpus")
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return ""
	}
	return d
}

// corpora are the corpora a test runs over: always the bundled sample,
// and the third-party corpus when present. The log says which ran.
func corpora(t *testing.T) map[string][]corpusItem {
	t.Helper()
	out := map[string][]corpusItem{"bundled": bundledCorpus(t)}
	dir := sharedCorpus(t)
	if dir == "" {
		t.Logf("ran the bundled corpus (%d payloads) only: no third-party corpus at $SPCSTR_SHARED/corpus or shared/corpus beside the repository", len(out["bundled"]))
		return out
	}
	items, files := loadCorpus(t, dir)
	if files < 50 || len(items) < 6675 || len(items) > 6700+100 {
		t.Fatalf("corpus at %s looks incomplete: %d files, %d payloads", dir, files, len(items))
	}
	t.Logf("ran the bundled corpus (%d payloads) and the third-party corpus at %s (%d payloads)", len(out["bundled"]), dir, len(items))
	out["third-party"] = items
	return out
}

// isTranscript tells a transcript (lines linked by parentUuid, none a
// hook record) from a log of hook records.
func isTranscript(lines []json.RawMessage) bool {
	linked := false
	for _, l := range lines {
		var m map[string]json.RawMessage
		if json.Unmarshal(l, &m) != nil {
			return false
		}
		if _, ok := m["hook_event_name"]; ok {
			return false
		}
		if _, ok := m["parentUuid"]; ok {
			linked = true
		}
	}
	return linked
}

// findPayload returns the first object (depth first) that has
// hook_event_name, or nil.
func findPayload(raw json.RawMessage, depth int) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || depth > 5 {
		return nil
	}
	switch raw[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		if _, ok := m["hook_event_name"]; ok {
			return raw
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := findPayload(m[k], depth+1); p != nil {
				return p
			}
		}
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return nil
		}
		for _, e := range a {
			if p := findPayload(e, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// countLogged returns the entries of every event log of a project and of
// rejected.json.
func countLogged(t testing.TB, p *project) (logged, rejected int) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(p.layout().LogsDir(), "*.json"))
	for _, lp := range paths {
		n := len(logEntries(t, lp))
		switch filepath.Base(lp) {
		case logs.Name(logs.Rejected, "") + logs.Ext:
			rejected += n
		case "decisions.json", "repairs.json", "answers.json":
		default:
			logged += n
		}
	}
	return logged, rejected
}

// checkProject asserts what must hold after any number of hooks: every
// *.json under .spcstr parses (and is UTF-8), nothing was set aside as
// corrupt, and nothing was written outside .spcstr.
func checkProject(t testing.TB, p *project) {
	t.Helper()
	if n := parseAllJSON(t, p.layout().Dir()); n == 0 {
		t.Error("no JSON files written")
	}
	for _, f := range tree(t, p.layout().Dir()) {
		if strings.Contains(f, ".corrupt-") {
			t.Errorf("spcstr set aside its own file: %s", f)
		}
	}
	if out := outside(tree(t, p.root)); len(out) != 0 {
		t.Errorf("written outside .spcstr: %v", out)
	}
}

// TestCorpus feeds every payload of each corpus to the recorder: each exits
// 0 and is either logged or in rejected.json.
func TestCorpus(t *testing.T) {
	for name, items := range corpora(t) {
		t.Run(name, func(t *testing.T) { feedCorpus(t, items) })
	}
}

func feedCorpus(t *testing.T, items []corpusItem) {
	// One project per worker; a file's payloads stay in order.
	const workers = 4
	byFile := map[string][]corpusItem{}
	var order []string
	for _, it := range items {
		if _, ok := byFile[it.file]; !ok {
			order = append(order, it.file)
		}
		byFile[it.file] = append(byFile[it.file], it)
	}
	shards := make([][]corpusItem, workers)
	for i, f := range order {
		shards[i%workers] = append(shards[i%workers], byFile[f]...)
	}
	projects := make([]*project, workers)
	for i := range projects {
		projects[i] = newProject(t)
		// Do not reach the corpus's own paths (cwd is ignored while
		// CLAUDE_PROJECT_DIR is set).
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(p *project, items []corpusItem) {
			defer wg.Done()
			for _, it := range items {
				_, errOut := p.run(it.payload, it.event)
				for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
					if line != "" && !strings.Contains(line, "payload rejected") {
						mu.Lock()
						problems = append(problems, fmt.Sprintf("%s[%d]: %s", it.file, it.index, line))
						mu.Unlock()
					}
				}
			}
		}(projects[w], shards[w])
	}
	wg.Wait()
	for i, pr := range problems {
		if i == 20 {
			t.Errorf("... and %d more", len(problems)-20)
			break
		}
		t.Error(pr)
	}
	logged, rejected := 0, 0
	reasons := map[string]int{}
	for _, p := range projects {
		l, r := countLogged(t, p)
		logged += l
		rejected += r
		checkProject(t, p)
		for _, e := range p.log(logs.Name(logs.Rejected, "")) {
			reasons[fmt.Sprint(e["reason"])]++
		}
	}
	t.Logf("rejected: %v", reasons)
	t.Logf("corpus: %d payloads from %d files: %d logged, %d rejected", len(items), len(order), logged, rejected)
	if logged+rejected != len(items) {
		t.Errorf("%d payloads in, %d logged + %d rejected", len(items), logged, rejected)
	}
	// Nearly all real payloads are valid: only the hand-made invalid ones
	// of the bundled sample, and a few of the third-party corpus, are not.
	if logged < len(items)*98/100 {
		t.Errorf("only %d of %d payloads logged", logged, len(items))
	}
}

// TestCorpusBinary runs a sample of each corpus through the real binary.
func TestCorpusBinary(t *testing.T) {
	for name, items := range corpora(t) {
		t.Run(name, func(t *testing.T) { feedBinary(t, items) })
	}
}

func feedBinary(t *testing.T, items []corpusItem) {
	p := newProject(t)
	step := max(1, len(items)/300)
	fed := 0
	for i := 0; i < len(items); i += step {
		it := items[i]
		res := runBinary(t, p, it.payload, it.event)
		if res.code != 0 {
			t.Errorf("%s[%d]: exit %d: %s", it.file, it.index, res.code, res.stderr)
		}
		if strings.Contains(res.stderr, "internal error") {
			t.Errorf("%s[%d]: %s", it.file, it.index, res.stderr)
		}
		fed++
	}
	logged, rejected := countLogged(t, p)
	t.Logf("binary sample: %d payloads: %d logged, %d rejected", fed, logged, rejected)
	if logged+rejected != fed {
		t.Errorf("%d payloads in, %d logged + %d rejected", fed, logged, rejected)
	}
	checkProject(t, p)
}
