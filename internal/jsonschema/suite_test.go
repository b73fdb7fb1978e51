package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The module whose zip carries JSON-Schema-Test-Suite's draft2020-12
	// files (jsonschema/testdata/draft2020-12, copied at the suite's commit
	// 83e866b4): imported so that go.mod pins it and go test fetches it.
	_ "github.com/google/jsonschema-go/jsonschema"
	maintained "github.com/santhosh-tekuri/jsonschema/v6"
)

// suiteModule is the module shipping the published test suite.
const suiteModule = "github.com/google/jsonschema-go"

// suiteDir finds the suite's draft2020-12 folder in the module cache, as
// `go list -m -json` says where the pinned module is.
func suiteDir(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go command is needed to find the test suite: ", err)
	}
	out, err := exec.Command(goBin, "list", "-m", "-json", suiteModule).Output()
	if err != nil {
		t.Fatalf("go list -m -json %s: %v", suiteModule, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go list -m -json %s: no Dir (%v): %s", suiteModule, err, out)
	}
	return filepath.Join(m.Dir, "jsonschema", "testdata", "draft2020-12")
}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// TestPublishedSuite runs JSON-Schema-Test-Suite (draft 2020-12) through
// this engine and through a maintained validator
// (santhosh-tekuri/jsonschema, which passes the suite). For every schema
// this engine compiles, both must give the suite's answer on every
// instance; a schema it refuses must be refused as unusable (a keyword it
// does not support, a pattern RE2 rejects), never as "not a JSON Schema",
// since every schema of the suite is one. Counts keep it honest: most of
// the suite's files are about supported keywords.
func TestPublishedSuite(t *testing.T) {
	dir := suiteDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) < 40 {
		t.Fatalf("suite at %s: %d files, %v", dir, len(files), err)
	}
	var compared, groups, refused int
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var gs []suiteGroup
		if err := json.Unmarshal(data, &gs); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, g := range gs {
			where := name + ": " + g.Description
			ours, err := Compile(g.Schema)
			if err != nil {
				if !errors.Is(err, ErrUnusable) {
					t.Errorf("%s: a suite schema refused as %v", where, err)
				}
				refused++
				continue
			}
			theirs := compileMaintained(t, g.Schema)
			groups++
			for _, tc := range g.Tests {
				inst, err := Decode(tc.Data)
				if err != nil {
					t.Fatalf("%s / %s: %v", where, tc.Description, err)
				}
				got := Validate(ours, inst) == nil
				if got != tc.Valid {
					t.Errorf("%s / %s: valid %v, the suite says %v (violations %v)", where, tc.Description, got, tc.Valid, Validate(ours, inst))
				}
				v, err := maintained.UnmarshalJSON(bytes.NewReader(tc.Data))
				if err != nil {
					t.Fatal(err)
				}
				if other := theirs.Validate(v) == nil; other != got {
					t.Errorf("%s / %s: valid %v here, %v by the maintained validator", where, tc.Description, got, other)
				}
				compared++
			}
		}
	}
	t.Logf("%d schemas compared over %d instances; %d schemas refused as unusable", groups, compared, refused)
	if groups < 140 || compared < 500 {
		t.Errorf("only %d schemas and %d instances compared: the supported keywords cover more of the suite", groups, compared)
	}
}

// compileMaintained compiles schema with the maintained validator, as draft
// 2020-12 with formats not asserted (as here: format is an annotation).
func compileMaintained(t *testing.T, schema json.RawMessage) *maintained.Schema {
	t.Helper()
	doc, err := maintained.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := maintained.NewCompiler()
	c.DefaultDraft(maintained.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("the maintained validator refuses a schema this engine compiled: %v", err)
	}
	return s
}
