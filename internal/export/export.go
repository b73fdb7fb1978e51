package export

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// Formats.
const (
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// ParseFormat checks a --format value ("md" is accepted for markdown).
func ParseFormat(s string) (string, error) {
	switch s {
	case "", FormatMarkdown, "md":
		return FormatMarkdown, nil
	case FormatJSON:
		return FormatJSON, nil
	}
	return "", fmt.Errorf("unknown format %q (use markdown or json)", s)
}

// WriteJSON writes the summaries as one JSON document (Schema), indented.
func WriteJSON(w io.Writer, sums []*Summary, opt Options) error {
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	if sums == nil {
		sums = []*Summary{}
	}
	doc := Document{Schema: Schema, GeneratedAt: now().UTC(), Generator: opt.Generator, Sessions: sums}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// Export selects sessions, summarises them and writes them to w in format.
// With Selector.All, sessions that cannot be read are reported in the
// returned error after the others are written.
func Export(ctx context.Context, w io.Writer, l state.Layout, sel Selector, format string, opt Options) error {
	format, err := ParseFormat(format)
	if err != nil {
		return err
	}
	ids, err := Select(l, sel)
	if err != nil {
		return err
	}
	sums, buildErr := BuildAll(ctx, l, ids, opt)
	if len(sums) == 0 {
		return buildErr
	}
	if format == FormatJSON {
		err = WriteJSON(w, sums, opt)
	} else {
		err = WriteMarkdown(w, sums)
	}
	if err != nil {
		return err
	}
	return buildErr
}
