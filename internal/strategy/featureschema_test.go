package strategy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// TestFeatureSchema: long-running checks the feature list against
// feature_schema (inline, a file, or the default) when the list is written
// and at session start. A violation, or a schema file that cannot be used,
// is reported and the strategy keeps running.
func TestFeatureSchema(t *testing.T) {
	inline := "strategies:\n  long-running:\n    feature_schema:\n      type: array\n      items:\n        type: object\n        required: [id, description, passes]\n        properties:\n          id: {type: integer}\n"
	file := "strategies:\n  long-running:\n    feature_schema: schemas/features.json\n"
	idSchema := `{"type":"array","items":{"type":"object","required":["id"]}}`
	tests := []struct {
		name, yaml string
		files      map[string]string
		list       string
		warn       string // in the write's warning; "" = no warning
	}{
		{"default schema, valid", "strategies:\n  long-running: {}\n", nil,
			`[{"description":"a","passes":false}]`, ""},
		{"default schema, passes missing", "strategies:\n  long-running: {}\n", nil,
			`[{"description":"a"}]`, `does not satisfy the feature schema`},
		{"default schema, not JSON", "strategies:\n  long-running: {}\n", nil,
			`[{"description":`, `it is not JSON`},
		{"inline schema, valid", inline, nil,
			`[{"id":1,"description":"a","passes":false}]`, ""},
		{"inline schema, violated", inline, nil,
			`[{"id":"one","description":"a","passes":false}]`, `does not satisfy the feature schema`},
		{"inline schema, its own rule", inline, nil,
			`[{"description":"a","passes":false}]`, `missing properties: ["id"]`},
		{"schema file", file, map[string]string{"schemas/features.json": idSchema},
			`[{"description":"a","passes":false}]`, `missing properties: ["id"]`},
		{"schema file missing: reported, the strategy goes on", file, nil,
			`[{"description":"a","passes":false}]`, "cannot check feature_list.json: feature_schema file schemas/features.json"},
		{"schema file not a schema", file, map[string]string{"schemas/features.json": `{"type": 5}`},
			`[{"description":"a","passes":false}]`, "cannot check feature_list.json: feature_schema file schemas/features.json: not a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, false)
			for rel, c := range tt.files {
				p.write(rel, c)
			}
			gs := p.gates(tt.yaml)
			if len(gs) != 1 {
				t.Fatalf("gates %v", gs)
			}
			// A schema file that cannot be used is a problem for doctor
			// (and strategy validate), with the file named.
			cfg, _ := config.Load(p.layout.ConfigPath())
			problems := Validate(cfg)
			if strings.Contains(tt.warn, "cannot check") != (len(problems) == 1) ||
				len(problems) == 1 && !strings.Contains(problems[0].Message, "strategies.long-running: feature_schema file schemas/features.json") {
				t.Errorf("validate: %v", problems)
			}
			p.write("feature_list.json", tt.list)
			vs := run(t, gs, p.input(hookio.PostToolUse, map[string]any{"tool_name": "Write",
				"tool_input":    map[string]any{"file_path": filepath.Join(p.layout.Root, "feature_list.json"), "content": tt.list},
				"tool_response": map[string]any{"type": "create"}}))
			var said []string
			for _, v := range vs {
				said = append(said, v.SystemMessage)
				if v.Decision == gate.Block || v.Decision == gate.Deny {
					t.Errorf("a schema problem blocked: %+v", v)
				}
			}
			got := strings.Join(said, "\n")
			if tt.warn == "" && got != "" || tt.warn != "" && !strings.Contains(got, tt.warn) {
				t.Fatalf("warning %q, want %q", got, tt.warn)
			}
			// The strategy keeps running: session start still gives the
			// coding context, which names the problem too.
			vs = run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": "startup"}))
			if len(vs) != 1 || !strings.Contains(vs[0].Context, "Session Context") {
				t.Fatalf("session start = %+v", vs)
			}
			if tt.warn != "" && !strings.Contains(vs[0].Context, tt.warn[:min(len(tt.warn), 20)]) {
				t.Errorf("coding context does not report %q:\n%s", tt.warn, vs[0].Context)
			}
		})
	}
}

// TestFeatureSchemaConfigErrors: a schema that cannot be used is a
// configuration error at its line and column.
func TestFeatureSchemaConfigErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"strategies:\n  long-running:\n    feature_schema: /etc/schema.json\n",
			`config.yaml:3:21: strategies.long-running: feature_schema "/etc/schema.json": want a schema (a mapping) or a file inside the project`},
		{"strategies:\n  long-running:\n    feature_schema:\n      type: 5\n",
			`config.yaml:3:5: strategies.long-running: feature_schema: not a JSON Schema`},
		{"strategies:\n  long-running:\n    feature_schema:\n      items:\n        $ref: '#/$defs/feature'\n",
			`config.yaml:3:5: strategies.long-running: feature_schema: not a usable JSON Schema: /items/$ref: keyword "$ref" is not supported (supported: type,`},
	}
	for _, tt := range tests {
		problems := Validate(cfgFrom(t, tt.yaml))
		if len(problems) != 1 || !strings.HasPrefix(problems[0].Message, tt.want) {
			t.Errorf("problems %v\nwant %q", problems, tt.want)
		}
	}
}

// TestCodingContext: the session count and the current feature (the first
// that does not pass).
func TestCodingContext(t *testing.T) {
	p := newProject(t, false)
	gs := p.gates("strategies:\n  long-running: {}\n")
	p.write("feature_list.json", `[{"category":"auth","description":"login","passes":true},{"category":"auth","description":"logout  works","passes":false},{"description":"c","passes":false}]`)
	p.write(".spcstr/sessions/s0/state.json", "{}")
	p.write(".spcstr/sessions/s1/state.json", "{}")
	start := func(source string) string {
		vs := run(t, gs, p.input(hookio.SessionStart, map[string]any{"source": source}))
		return vs[0].Context
	}
	c := start("startup")
	for _, w := range []string{"- Session: #2 of this project\n", "- Features: 1/3 passing", "- Current feature (the first not passing): auth: logout works"} {
		if !strings.Contains(c, w) {
			t.Errorf("coding context lacks %q:\n%s", w, c)
		}
	}
	start("compact")
	if c := start("resume"); !strings.Contains(c, "- Session: #2 of this project (this session's start #2)") {
		t.Errorf("resumed:\n%s", c)
	}
}
