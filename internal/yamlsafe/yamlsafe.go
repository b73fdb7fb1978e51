// Package yamlsafe decodes YAML that a repository controls (config.yaml,
// requirements.yaml, strategy files, manifests the model can write) within
// bounds fixed before anything is allocated for it: a size, a nesting
// depth checked by a linear scan before the YAML library tokenizes (its
// tokenizer and parser cost grows with the square of the nesting), and a
// node count that includes every alias expansion (an alias bomb of a few
// hundred bytes expands to billions of nodes in any walk over the decoded
// value). Every YAML decode of such a file goes through Parse or Unmarshal.
package yamlsafe

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Bounds of a YAML document from a repository.
const (
	// MaxBytes is the largest document decoded.
	MaxBytes = 1 << 20
	// MaxDepth is the deepest nesting of mappings and sequences.
	MaxDepth = 64
	// MaxNodes is the most nodes a document may hold once every alias is
	// expanded: the most any walk over its decoded value visits.
	MaxNodes = 100_000
)

// ErrBounds is wrapped by every error for a document over a bound.
var ErrBounds = errors.New("YAML document over spcstr's bounds")

// Check reports whether data is within the bounds, parsing it once.
func Check(data []byte) error {
	_, err := Parse(data, 0)
	return err
}

// Parse parses data (parser.ParseBytes) once it is known to be within
// MaxBytes and MaxDepth, and checks the parsed file against MaxNodes.
func Parse(data []byte, mode parser.Mode) (*ast.File, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrBounds, len(data), MaxBytes)
	}
	if err := scanDepth(data, MaxDepth); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, mode)
	if err != nil {
		return nil, err
	}
	if err := countNodes(f, MaxNodes); err != nil {
		return nil, err
	}
	return f, nil
}

// Unmarshal is yaml.UnmarshalWithOptions within the bounds: it decodes the
// first document of data into v (nothing for an empty document).
func Unmarshal(data []byte, v any, opts ...yaml.DecodeOption) error {
	f, err := Parse(data, 0)
	if err != nil {
		return err
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return nil
	}
	return yaml.NodeToValue(f.Docs[0].Body, v, opts...)
}

// countNodes counts the nodes of f with every alias expanded (an alias
// counts as the size of its anchor's value, merge keys included) and
// fails past max. Sizes are memoised per anchor, so the count itself is
// linear in the document.
func countNodes(f *ast.File, max int) error {
	c := &counter{anchors: map[string]int{}, max: max}
	for _, doc := range f.Docs {
		if doc == nil {
			continue
		}
		c.total += c.size(doc.Body, 0)
		if c.total > max {
			return fmt.Errorf("%w: more than %d nodes once aliases are expanded", ErrBounds, max)
		}
	}
	return nil
}

type counter struct {
	anchors map[string]int
	total   int
	max     int
}

// size returns the expanded size of n, saturating just above max.
func (c *counter) size(n ast.Node, depth int) int {
	if n == nil || depth > 4*MaxDepth {
		return 1
	}
	sum := 1
	add := func(k int) {
		sum = min(sum+k, c.max+1)
	}
	switch n := n.(type) {
	case *ast.DocumentNode:
		add(c.size(n.Body, depth+1))
	case *ast.MappingNode:
		for _, v := range n.Values {
			add(c.size(v, depth+1))
		}
	case *ast.MappingValueNode:
		add(c.size(n.Key, depth+1))
		add(c.size(n.Value, depth+1))
	case *ast.MappingKeyNode:
		add(c.size(n.Value, depth+1))
	case *ast.SequenceNode:
		for _, v := range n.Values {
			add(c.size(v, depth+1))
		}
	case *ast.TagNode:
		add(c.size(n.Value, depth+1))
	case *ast.LiteralNode:
	case *ast.AnchorNode:
		k := c.size(n.Value, depth+1)
		if n.Name != nil {
			c.anchors[n.Name.GetToken().Value] = k
		}
		add(k)
	case *ast.AliasNode:
		if n.Value != nil {
			add(c.anchors[n.Value.GetToken().Value])
		}
	}
	return sum
}
