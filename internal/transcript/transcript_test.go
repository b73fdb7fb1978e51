package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// The sample is the main transcript the real Claude Code CLI (2.1.330)
// wrote in the e2e agents scenario (testdata/agents-main.jsonl: 40 lines,
// 5 assistant lines for 3 distinct messages, each message's text and tool
// call on lines of their own), and agents-sidechain.jsonl is the transcript
// of its first subagent. Re-record both with
// go test ./e2e -run TestScenarios/agents -args -record.
const (
	sampleName    = "agents-main.jsonl"
	sidechainName = "agents-sidechain.jsonl"
)

// sampleWant was computed independently from the file (a few lines of
// Python): per message.id the last line's usage, summed; context =
// input+cache_read+cache_creation of the last main-chain message.
var sampleWant = state.Tokens{Input: 1835, Output: 189, CacheRead: 15700, CacheCreation: 1030, ContextUsed: 5995}

func readSample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", sampleName))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func update(t *testing.T, p string, cur *state.TranscriptCursor, tok *state.Tokens) {
	t.Helper()
	if err := Update(p, cur, tok); err != nil {
		t.Fatal(err)
	}
}

func TestSampleWholeFile(t *testing.T) {
	data := readSample(t)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, p, data)
	var cur state.TranscriptCursor
	var tok state.Tokens
	update(t, p, &cur, &tok)
	if totals(tok) != totals(sampleWant) {
		t.Errorf("tokens = %+v\nwant     %+v", tok, sampleWant)
	}
	if cur.Offset != int64(len(data)) || cur.Path != p {
		t.Errorf("cursor = %+v, want offset %d", cur, len(data))
	}
	// Nothing new: nothing counted twice.
	update(t, p, &cur, &tok)
	update(t, p, &cur, &tok)
	if totals(tok) != totals(sampleWant) {
		t.Errorf("re-reading counted again: %+v", tok)
	}
}

// The transcript grows while hooks run: whatever the point where one hook's
// read ends, the totals after the next read are the same, the message whose
// lines straddle the two reads is counted once, and its last line wins.
func TestSampleSplitAtEveryLine(t *testing.T) {
	data := readSample(t)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	for cut := 0; cut <= len(data); {
		var cur state.TranscriptCursor
		var tok state.Tokens
		write(t, p, data[:cut])
		update(t, p, &cur, &tok)
		write(t, p, data)
		update(t, p, &cur, &tok)
		if totals(tok) != totals(sampleWant) {
			t.Fatalf("split at byte %d: tokens = %+v, want %+v", cut, tok, sampleWant)
		}
		next := bytes.IndexByte(data[cut:], '\n')
		if next < 0 {
			break
		}
		cut += next + 1
	}
}

// A hook may read while Claude Code is halfway through writing a line: the
// partial line is left for the next read.
func TestSamplePartialTrailingLine(t *testing.T) {
	data := readSample(t)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	// Byte cut points spread over the file, including inside its last line.
	cuts := []int{1, 2, len(data) - 1, len(data) - 2}
	for c := 0; c < len(data); c += len(data)/97 + 1 {
		cuts = append(cuts, c)
	}
	for _, cut := range cuts {
		var cur state.TranscriptCursor
		var tok state.Tokens
		write(t, p, data[:cut])
		update(t, p, &cur, &tok)
		if cur.Offset > int64(cut) || (cur.Offset > 0 && data[cur.Offset-1] != '\n') {
			t.Fatalf("cut %d: cursor %d is not at a line end", cut, cur.Offset)
		}
		write(t, p, data)
		update(t, p, &cur, &tok)
		if totals(tok) != totals(sampleWant) {
			t.Fatalf("cut %d: tokens = %+v, want %+v", cut, tok, sampleWant)
		}
	}
}

func assistantLine(id, model string, sidechain bool, in, out, cr, cc int64) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":%v,"message":{"id":%q,"model":%q,"role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`+"\n",
		sidechain, id, model, in, out, cr, cc)
}

func TestCountingRules(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  state.Tokens
	}{
		{"one message, three blocks, last wins", []string{
			assistantLine("m1", "claude-sonnet-4-6", false, 3, 8, 100, 10),
			assistantLine("m1", "claude-sonnet-4-6", false, 3, 8, 100, 10),
			assistantLine("m1", "claude-sonnet-4-6", false, 3, 250, 100, 10),
		}, state.Tokens{Input: 3, Output: 250, CacheRead: 100, CacheCreation: 10, ContextUsed: 113}},
		{"synthetic messages are skipped", []string{
			assistantLine("m1", "claude-sonnet-4-6", false, 1, 2, 3, 4),
			assistantLine("m2", "<synthetic>", false, 1000, 1000, 1000, 1000),
		}, state.Tokens{Input: 1, Output: 2, CacheRead: 3, CacheCreation: 4, ContextUsed: 8}},
		{"sidechain counts tokens but not context", []string{
			assistantLine("m1", "claude-sonnet-4-6", false, 10, 20, 30, 40),
			assistantLine("s1", "claude-haiku-4-5", true, 728, 152, 0, 0),
		}, state.Tokens{Input: 738, Output: 172, CacheRead: 30, CacheCreation: 40, ContextUsed: 80}},
		{"user lines mentioning assistant and usage are ignored", []string{
			`{"type":"user","message":{"role":"user","content":"the \"assistant\" said \"usage\": {\"input_tokens\": 999}"}}` + "\n",
			`{"type":"system","subtype":"turn_duration","content":"assistant usage"}` + "\n",
		}, state.Tokens{}},
		{"malformed lines are skipped", []string{
			`{"type":"assistant","message":{"usage":` + "\n",
			"not json at all \"assistant\" \"usage\"\n",
			assistantLine("m1", "m", false, 1, 1, 1, 1),
		}, state.Tokens{Input: 1, Output: 1, CacheRead: 1, CacheCreation: 1, ContextUsed: 3}},
		{"assistant line without usage", []string{
			`{"type":"assistant","message":{"id":"m9","content":[],"usage":null}}` + "\n",
		}, state.Tokens{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.jsonl")
			write(t, p, []byte(strings.Join(tt.lines, "")))
			var cur state.TranscriptCursor
			var tok state.Tokens
			update(t, p, &cur, &tok)
			if totals(tok) != totals(tt.want) {
				t.Errorf("tokens = %+v, want %+v", tok, tt.want)
			}
		})
	}
}

// The real subagent transcript line counts; it never moves the main
// context figure.
func TestSidechainSample(t *testing.T) {
	side, err := os.ReadFile(filepath.Join("testdata", sidechainName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(side, []byte("\n")) {
		side = append(side, '\n')
	}
	data := append(readSample(t), side...)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, p, data)
	var cur state.TranscriptCursor
	var tok state.Tokens
	update(t, p, &cur, &tok)
	want := sampleWant // plus the subagent's two messages, computed the same way
	want.Input += 728
	want.Output += 152
	want.CacheRead += 2100
	want.CacheCreation += 2100
	if totals(tok) != totals(want) {
		t.Errorf("tokens = %+v, want %+v", tok, want)
	}
}

func TestLongLines(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	lines := `{"type":"user","toolUseResult":{"stdout":"` + big + `"}}` + "\n" +
		`{"type":"assistant","message":{"id":"big","model":"m","content":[{"type":"text","text":"` + big + `"}],"usage":{"input_tokens":5,"output_tokens":6,"cache_read_input_tokens":7,"cache_creation_input_tokens":8}}}` + "\n" +
		assistantLine("after", "m", false, 1, 1, 1, 1)
	p := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, p, []byte(lines))
	var cur state.TranscriptCursor
	var tok state.Tokens
	update(t, p, &cur, &tok)
	want := state.Tokens{Input: 6, Output: 7, CacheRead: 8, CacheCreation: 9, ContextUsed: 3}
	if totals(tok) != totals(want) || cur.Offset != int64(len(lines)) {
		t.Errorf("tokens = %+v (offset %d of %d), want %+v", tok, cur.Offset, len(lines), want)
	}
	// A long line still being written is not consumed.
	write(t, p, []byte(lines+`{"type":"assistant","message":{"id":"z","content":"`+big))
	update(t, p, &cur, &tok)
	if cur.Offset != int64(len(lines)) || totals(tok) != totals(want) {
		t.Errorf("partial long line consumed: offset %d, tokens %+v", cur.Offset, tok)
	}
}

func TestMissingAndChangingFiles(t *testing.T) {
	dir := t.TempDir()
	var cur state.TranscriptCursor
	var tok state.Tokens
	// No path, and a transcript that does not exist yet (SessionStart).
	update(t, "", &cur, &tok)
	p := filepath.Join(dir, "later.jsonl")
	update(t, p, &cur, &tok)
	if totals(tok) != (sums{}) || cur.Offset != 0 {
		t.Fatalf("missing transcript changed state: %+v %+v", cur, tok)
	}
	write(t, p, []byte(assistantLine("a", "m", false, 1, 2, 0, 0)))
	update(t, p, &cur, &tok)
	if tok.Input != 1 || tok.Output != 2 {
		t.Fatalf("after creation: %+v", tok)
	}
	// A different transcript: totals kept, the new file read from its start.
	p2 := filepath.Join(dir, "other.jsonl")
	write(t, p2, []byte(assistantLine("b", "m", false, 10, 20, 0, 0)))
	update(t, p2, &cur, &tok)
	if tok.Input != 11 || tok.Output != 22 || cur.Path != p2 {
		t.Fatalf("after path change: %+v %+v", cur, tok)
	}
	// A transcript that shrank is read again from the start. (One rewritten
	// to the same size or larger is not noticed: only the size is compared.)
	write(t, p2, []byte(assistantLine("c", "m", false, 7, 0, 0, 0)))
	update(t, p2, &cur, &tok)
	if tok.Input != 18 {
		t.Fatalf("after shrink: %+v", tok)
	}
	// An unreadable transcript (here a folder) changes no totals.
	d := filepath.Join(dir, "isdir.jsonl")
	_ = os.Mkdir(d, 0o755)
	before := tok
	_ = Update(d, &cur, &tok)
	if totals(tok) != totals(before) {
		t.Errorf("folder as transcript changed tokens: %+v", tok)
	}
}

func TestRecentBounded(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		sb.WriteString(assistantLine(fmt.Sprintf("m%03d", i), "m", false, 1, 1, 0, 0))
	}
	p := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, p, []byte(sb.String()))
	var cur state.TranscriptCursor
	var tok state.Tokens
	update(t, p, &cur, &tok)
	if tok.Input != 100 || len(cur.Recent) != recentKeep || cur.Recent[recentKeep-1].ID != "m099" {
		t.Errorf("tokens %+v, recent %d (last %q)", tok, len(cur.Recent), cur.Recent[len(cur.Recent)-1].ID)
	}
}

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		def   int64
		want  int64
	}{
		{"claude-sonnet-4-6", 123, 200_000},
		{"claude-opus-4-1[1m]", 200_000, 1_000_000},
		{"claude-opus-5-5", 200_000, 1_000_000},
		{"claude-haiku-4-5-20251001", 1, 200_000},
		{"opus", 1, 1_000_000},
		{"claude-nobody-9", 123, 123},
		{"", 123, 123},
	}
	for _, tt := range tests {
		if got := ContextWindow(tt.model, tt.def); got != tt.want {
			t.Errorf("ContextWindow(%q, %d) = %d", tt.model, tt.def, got)
		}
	}
}

// A line longer than the read window (a huge tool output) used to stall
// the cursor for ever, re-reading 32 MiB on every hook. It is skipped: the
// offset moves past it and later lines keep counting.
func TestLineOverLimitSkipped(t *testing.T) {
	huge := `{"type":"user","toolUseResult":{"stdout":"` + strings.Repeat("y", maxRead+(1<<20)) + `"}}` + "\n"
	after := assistantLine("a1", "m", false, 1, 2, 3, 4)
	p := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, p, []byte(after+huge+after+assistantLine("a2", "m", false, 1, 1, 1, 1)))
	var cur state.TranscriptCursor
	var tok state.Tokens
	for i := 0; i < 4 && cur.Offset < int64(2*len(after)+len(huge)); i++ {
		update(t, p, &cur, &tok)
	}
	want := state.Tokens{Input: 2, Output: 3, CacheRead: 4, CacheCreation: 5, ContextUsed: 3}
	if totals(tok) != totals(want) {
		t.Errorf("tokens = %+v, want %+v (offset %d)", tok, want, cur.Offset)
	}
}

// A FIFO (or device) as the transcript is refused at once, never read.
func TestTranscriptNotRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, "/dev/zero"} {
		var cur state.TranscriptCursor
		var tok state.Tokens
		done := make(chan error, 1)
		go func() { done <- Update(path, &cur, &tok) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: no error", path)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Update blocked", path)
		}
	}
}

// sums is Tokens without its split by model, so that it compares with ==.
type sums struct{ Input, Output, CacheRead, CacheCreation, ContextUsed, ContextWindow int64 }

func totals(t state.Tokens) sums {
	return sums{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.ContextUsed, t.ContextWindow}
}

func TestByModelSumsToTotals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	lines := `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20}}}
{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"output_tokens":50,"cache_read_input_tokens":100,"cache_creation_input_tokens":20}}}
{"type":"assistant","isSidechain":true,"message":{"id":"m2","model":"claude-haiku-4-5-20251001","usage":{"input_tokens":7,"output_tokens":3,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}
{"type":"assistant","message":{"id":"m3","usage":{"input_tokens":1,"output_tokens":1}}}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var cur state.TranscriptCursor
	var tok state.Tokens
	update(t, p, &cur, &tok)
	want := map[string]state.ModelUsage{
		"claude-sonnet-4-5-20250929": {Input: 10, Output: 50, CacheRead: 100, CacheCreation: 20},
		"claude-haiku-4-5-20251001":  {Input: 7, Output: 3},
		UnknownModel:                 {Input: 1, Output: 1},
	}
	if !reflect.DeepEqual(tok.ByModel, want) {
		t.Errorf("by model = %+v\nwant %+v", tok.ByModel, want)
	}
	var sum state.ModelUsage
	for _, u := range tok.ByModel {
		sum.Input, sum.Output, sum.CacheRead, sum.CacheCreation = sum.Input+u.Input, sum.Output+u.Output, sum.CacheRead+u.CacheRead, sum.CacheCreation+u.CacheCreation
	}
	if sum.Input != tok.Input || sum.Output != tok.Output || sum.CacheRead != tok.CacheRead || sum.CacheCreation != tok.CacheCreation {
		t.Errorf("by model sums to %+v, totals %+v", sum, tok)
	}
}

func TestTitleLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	lines := `{"type":"user","message":{"content":"a \"summary\" of nothing"}}
{"type":"summary","summary":"Old summary","leafUuid":"x"}
{"type":"ai-title","aiTitle":"Add a healthz endpoint","sessionId":"s"}
{"type":"system","subtype":"stop_hook_summary"}
{"type":"custom-title","customTitle":"healthz work","sessionId":"s"}
{"type":"ai-title","aiTitle":"A later generated title","sessionId":"s"}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	var cur state.TranscriptCursor
	var tok state.Tokens
	if err := Read(p, &cur, &tok, func(text, src string) { got = append(got, src+": "+text) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"summary: Old summary", "ai-title: Add a healthz endpoint", "custom-title: healthz work", "ai-title: A later generated title"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("titles = %q, want %q", got, want)
	}
	// Through Session.SetTitle the user's own title wins.
	s := state.New("s", "/p", time.Now())
	s.SetTitle("first prompt", state.TitlePrompt)
	cur, tok = state.TranscriptCursor{}, state.Tokens{}
	if err := Read(p, &cur, &tok, s.SetTitle); err != nil {
		t.Fatal(err)
	}
	if s.Title != "healthz work" || s.TitleSource != state.TitleCustom {
		t.Errorf("title = %q (%s)", s.Title, s.TitleSource)
	}
}
