package config

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

// Node returns one top-level section of the file as a syntax tree node,
// whose positions are lines and columns of config.yaml itself: decoding it
// (yaml.NodeToValue) gives errors that point into the file, not into the
// section. The file is parsed once per Config.
func (c *Config) Node(name string) (node ast.Node, ok bool, err error) {
	if len(c.Raw) == 0 {
		return nil, false, nil
	}
	if !c.planted {
		c.planted = true
		c.tree, c.treeErr = parseTree(c.Raw)
		if c.treeErr != nil {
			c.treeErr = fmt.Errorf("parse %s: %w", c.Path, c.treeErr)
		}
	}
	if c.treeErr != nil {
		return nil, false, c.treeErr
	}
	if c.tree == nil {
		return nil, false, nil
	}
	for _, kv := range c.tree.Values {
		if kv.Key != nil && kv.Key.String() == name {
			return kv.Value, true, nil
		}
	}
	return nil, false, nil
}

func parseTree(data []byte) (*ast.MappingNode, error) {
	f, err := yamlsafe.Parse(data, 0)
	if err != nil {
		return nil, err
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return nil, nil
	}
	switch body := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		return body, nil
	case *ast.MappingValueNode: // a file of one key
		return &ast.MappingNode{Values: []*ast.MappingValueNode{body}}, nil
	case *ast.NullNode, *ast.CommentNode:
		return nil, nil
	default:
		return nil, fmt.Errorf("the top level must be a mapping of keys")
	}
}

// positioned is a YAML error that knows where it is: the decoder's own
// errors, and NodeError's.
type positioned interface {
	GetToken() *token.Token
	GetMessage() string
}

// NodeError is err at node n of config.yaml: Where finds its line and
// column. Decoders of custom option types (yaml.NodeUnmarshaler) return it
// so that their errors point into the file like the decoder's own.
func NodeError(n ast.Node, err error) error {
	tok := tokenOf(n)
	if tok == nil {
		return err
	}
	return &nodeError{tok: tok, err: err}
}

// tokenOf is where node n starts: for a mapping, its first key (the
// parser places a mapping's own token at its first colon).
func tokenOf(n ast.Node) *token.Token {
	switch m := n.(type) {
	case nil:
		return nil
	case *ast.MappingNode:
		if len(m.Values) > 0 && m.Values[0].Key != nil && !m.IsFlowStyle {
			return m.Values[0].Key.GetToken()
		}
	case *ast.MappingValueNode:
		if m.Key != nil {
			return m.Key.GetToken()
		}
	}
	return n.GetToken()
}

type nodeError struct {
	tok *token.Token
	err error
}

func (e *nodeError) Error() string {
	return fmt.Sprintf("[%d:%d] %v", e.tok.Position.Line, e.tok.Position.Column, e.err)
}
func (e *nodeError) Unwrap() error          { return e.err }
func (e *nodeError) GetToken() *token.Token { return e.tok }
func (e *nodeError) GetMessage() string     { return e.err.Error() }

// Where describes a configuration error as "config.yaml:LINE:COL: what:
// message", one line: the position is the error's own when the YAML
// decoder (or NodeError) gave one, else that of fallback (the key or
// section at fault); what names the setting ("strategies.token-budget").
func (c *Config) Where(fallback ast.Node, what string, err error) string {
	file := "config.yaml"
	if c != nil && c.Path != "" {
		file = filepath.Base(c.Path)
	}
	msg := err.Error()
	var tok *token.Token
	var p positioned
	if errors.As(err, &p) && p.GetToken() != nil {
		tok, msg = p.GetToken(), p.GetMessage()
	} else {
		tok = tokenOf(fallback)
	}
	prefix := file
	if tok != nil {
		prefix = fmt.Sprintf("%s:%d:%d", file, tok.Position.Line, tok.Position.Column)
	}
	return fmt.Sprintf("%s: %s: %s", prefix, what, firstLine(msg))
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
