// Package docs holds spcstr's documentation; its only Go code is this
// test, which checks that every relative link in README.md and docs/*.md
// resolves.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// link matches a Markdown inline link or image: [text](target) or
// [text](target "title").
var link = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestLinksResolve: every relative link in README.md and docs/*.md points
// at a file or folder of the repository, and a #fragment at a heading of
// the Markdown file it names (GitHub's anchors). Links in code (fenced
// blocks, `spans`) are not links.
func TestLinksResolve(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	checked := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(string(text)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
			}
			fi, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", f, target, err)
				continue
			}
			if frag == "" || fi.IsDir() || !strings.HasSuffix(dest, ".md") {
				continue
			}
			data, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(data))[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", f, target, dest, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: the checker no longer finds them", checked)
	}
}

// codeSpan matches an inline code span.
var codeSpan = regexp.MustCompile("`[^`]*`")

// prose returns text's lines outside fenced code blocks, with inline code
// spans removed.
func prose(text string) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		out = append(out, codeSpan.ReplaceAllString(l, ""))
	}
	return out
}

// links lists the link targets in text.
func links(text string) []string {
	var out []string
	for _, l := range prose(text) {
		for _, m := range link.FindAllStringSubmatch(l, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors lists the anchors GitHub gives text's headings: lower case,
// punctuation other than - and _ dropped, spaces as -, a repeated one
// suffixed -1, -2, ….
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		for n, base := 1, a; out[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		out[a] = true
	}
	return out
}

// The anchor rules, on headings whose GitHub anchors are known.
func TestAnchors(t *testing.T) {
	got := anchors("# spcstr\n## The recorder: `spcstr hook [EVENT]`\n### state.json\n## Why each dependency is here\n## Why each dependency is here\n```\n# not a heading\n```\n")
	for _, want := range []string{"spcstr", "the-recorder-spcstr-hook-event", "statejson", "why-each-dependency-is-here", "why-each-dependency-is-here-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block made an anchor")
	}
}
