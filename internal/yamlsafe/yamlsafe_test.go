package yamlsafe

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// bomb is the 591-byte alias bomb of issue 23: ten anchors, each a list of
// ten aliases of the one before (10^10 nodes expanded).
func bomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{"config", "feedback:\n  enabled: true\n  loops:\n    - name: test\n      command: go test ./...\n", true},
		{"anchors used sensibly", "base: &b {a: 1, b: [1, 2]}\nx: *b\ny:\n  <<: *b\n  c: 3\n", true},
		{"quotes and brackets in scalars", "p: \"\\\\[TODO\"\nq: '[[[[['\nr: foo[bar\ns: it's [fine\n# [[[[\n", true},
		{"block scalar with deep indentation", "script: |\n  a\n" + strings.Repeat("  ", 100) + "x\n  y\nz: 1\n", true},
		{"alias bomb", bomb(), false},
		{"alias bomb in a nested key", "long-running:\n  feature_schema:\n" + indent(bomb(), "    "), false},
		{"flow nesting", "x: " + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "\n", false},
		{"flow nesting 65", "x: " + strings.Repeat("[", 65) + strings.Repeat("]", 65) + "\n", false},
		{"flow nesting 40", "x: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", true},
		{"compact sequences", "x:\n" + strings.Repeat("- ", 20000) + "1\n", false},
		{"indentation", deepBlock(200), false},
		{"indentation 30", deepBlock(30), true},
		{"too large", "x: " + strings.Repeat("a", MaxBytes) + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.doc))
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrBounds) {
				t.Fatalf("accepted (err %v)", err)
			}
			var v any
			if err := Unmarshal([]byte(tt.doc), &v); (err == nil) != tt.ok {
				t.Fatalf("Unmarshal: %v", err)
			}
		})
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}

func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
	}
	fmt.Fprintf(&b, "%sv: 1\n", strings.Repeat(" ", n))
	return b.String()
}

func TestUnmarshalMatchesLibrary(t *testing.T) {
	var got struct {
		A int            `yaml:"a"`
		B []string       `yaml:"b"`
		C map[string]any `yaml:"c"`
	}
	doc := "a: 3\nb: [x, y]\nc: &c {k: v}\nd: *c\n"
	if err := Unmarshal([]byte(doc), &got); err != nil {
		t.Fatal(err)
	}
	if got.A != 3 || len(got.B) != 2 || got.C["k"] != "v" {
		t.Errorf("got %+v", got)
	}
	var empty map[string]any
	if err := Unmarshal([]byte("# nothing\n"), &empty); err != nil || empty != nil {
		t.Errorf("empty document: %v %v", empty, err)
	}
}
