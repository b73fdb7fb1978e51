package config

import (
	"slices"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// AsksClosed reports whether the text of a config file that does not parse
// asks for a gate that fails closed: a `fail_mode` key whose value is not
// `open` (an unrecognised value counts as closed), or a key among
// closedByDefault (the names of sections closed when fail_mode is not
// given, such as the clean-state strategy). It reads the file as YAML
// tokens, so block and flow style, quotes, indentation and comments are
// told apart although the document as a whole does not parse; data is
// bounded by the caller (safefs.MaxConfigBytes).
func AsksClosed(data []byte, closedByDefault []string) bool {
	for _, tk := range lexer.Tokenize(string(data)) {
		if !scalar(tk) || tk.NextType() != token.MappingValueType {
			continue
		}
		if slices.Contains(closedByDefault, tk.Value) {
			return true
		}
		if tk.Value != "fail_mode" {
			continue
		}
		v := tk.Next.Next
		if v == nil || !scalar(v) || v.Value != "open" || v.Position.Line != tk.Position.Line {
			return true
		}
	}
	return false
}

// scalar reports whether tk is a plain or quoted scalar.
func scalar(tk *token.Token) bool {
	switch tk.Type {
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
		return true
	}
	return false
}
