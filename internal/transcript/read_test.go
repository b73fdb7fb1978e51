package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// refUsage and refTitle are encoding/json's reading of a line, as
// parseUsage and titleLine did it before internal/jsoncodec; they must
// agree on every line.
func refUsage(raw []byte) (u state.MessageUsage, model string, sidechain, ok bool) {
	if !bytes.Contains(raw, assistantMark) || !bytes.Contains(raw, []byte(`"usage"`)) {
		return u, "", false, false
	}
	var l struct {
		Type        string `json:"type"`
		IsSidechain bool   `json:"isSidechain"`
		Message     struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Usage *struct {
				Input         int64 `json:"input_tokens"`
				Output        int64 `json:"output_tokens"`
				CacheRead     int64 `json:"cache_read_input_tokens"`
				CacheCreation int64 `json:"cache_creation_input_tokens"`
				Creation      struct {
					OneHour int64 `json:"ephemeral_1h_input_tokens"`
				} `json:"cache_creation"`
				ToolUse struct {
					Searches int64 `json:"web_search_requests"`
				} `json:"server_tool_use"`
				Geo string `json:"inference_geo"`
			} `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
		return u, "", false, false
	}
	mu := l.Message.Usage
	for _, n := range []int64{mu.Input, mu.Output, mu.CacheRead, mu.CacheCreation, mu.Creation.OneHour, mu.ToolUse.Searches} {
		if n < 0 || n > maxCount {
			return u, "", false, false
		}
	}
	model = l.Message.Model
	if model == "" {
		model = UnknownModel
	}
	return state.MessageUsage{ID: l.Message.ID, Input: mu.Input, Output: mu.Output, CacheRead: mu.CacheRead, CacheCreation: mu.CacheCreation,
			CacheWrite1h: min(mu.Creation.OneHour, mu.CacheCreation), WebSearches: mu.ToolUse.Searches},
		pricing.VariantKey(model, mu.Geo, mu.Input+mu.CacheRead+mu.CacheCreation), l.IsSidechain, true
}

func refTitle(raw []byte) (title, source string) {
	if !bytes.Contains(raw, customTitleMark) && !bytes.Contains(raw, aiTitleMark) && !bytes.Contains(raw, summaryMark) {
		return "", ""
	}
	var l struct {
		Type        string `json:"type"`
		CustomTitle string `json:"customTitle"`
		AITitle     string `json:"aiTitle"`
		Summary     string `json:"summary"`
	}
	if json.Unmarshal(raw, &l) != nil {
		return "", ""
	}
	switch l.Type {
	case state.TitleCustom:
		return l.CustomTitle, state.TitleCustom
	case state.TitleAI:
		return l.AITitle, state.TitleAI
	case state.TitleSummary:
		return l.Summary, state.TitleSummary
	}
	return "", ""
}

func compareLine(t *testing.T, raw []byte) {
	t.Helper()
	gu, gm, gs, gok := parseUsage(raw, &state.Tokens{})
	wu, wm, ws, wok := refUsage(raw)
	if gu != wu || gm != wm || gs != ws || gok != wok {
		t.Fatalf("usage of %q:\n got %+v %q %v %v\nwant %+v %q %v %v", raw, gu, gm, gs, gok, wu, wm, ws, wok)
	}
	var gt, gsrc string
	titleLine(raw, func(title, source string) { gt, gsrc = title, source })
	if wt, wsrc := refTitle(raw); gt != wt || gsrc != wsrc {
		t.Fatalf("title of %q: got %q (%s), want %q (%s)", raw, gt, gsrc, wt, wsrc)
	}
}

func TestLinesReadAsEncodingJSON(t *testing.T) {
	for _, c := range []string{
		`{"type":"assistant","message":{"id":"m","model":"x","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}}`,
		`{"type":"assistant","isSidechain":true,"message":{"id":"m","usage":{"INPUT_TOKENS":5}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1.5}}}`,   // a fraction: not counted
		`{"type":"assistant","message":{"id":"m","usage":null}}`,                   // no usage
		`{"type":"assistant","message":{"usage":{"input_tokens":1},"usage":null}}`, // the later null wins
		`{"type":"assistant","message":"text","usage":{}}`,                         // message of another kind
		`{"type":"assistant","message":{"model":"<synthetic>","usage":{}}}`,
		`{"type":"assistant","message":{"usage":{}}} {"x":1}`,
		`{"type":"custom-title","customTitle":"Mine"}`,
		`{"type":"ai-title","aiTitle":"AI","summary":"s"}`,
		`{"type":"summary","summary":7}`,
		`{"type":"summary","summary":"S","SUMMARY":"T"}`,
	} {
		t.Run(c, func(t *testing.T) { compareLine(t, []byte(c)) })
	}
}

func FuzzLinesReadAsEncodingJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, MaxLine)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) { compareLine(t, raw) })
}
