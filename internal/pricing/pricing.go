// Package pricing owns what a session's tokens cost: a bundled table of
// per-model prices, overridable in the `pricing:` section of
// .spcstr/config.yaml, and the estimate of a session's cost from its token
// counts (input, output, cache reads and cache writes priced separately,
// by model). An estimate is never made from a guess: a model the table
// does not know leaves the session with tokens only.
package pricing

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/satmath"
	"github.com/dylan-gluck/spcstr/state"
)

// Price is one model's price in US dollars per million tokens. CacheWrite
// is the 5-minute cache write price (a 1-hour cache write costs more: the
// estimate is then low).
type Price struct {
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	CacheRead  float64 `yaml:"cache_read" json:"cache_read"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write"`
}

// Table maps a model id without its date suffix ("claude-sonnet-4-5") to
// its price.
type Table map[string]Price

// bundled is Anthropic's list prices (USD per million tokens) of the
// models it names. A model not listed is not priced. It is built when
// asked for, not at package init: the spcstr binary that runs every hook
// links this package (through the export) and must not pay for it.
func bundled() Table {
	return Table{
		"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
		"claude-opus-4-1":   {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
		"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
		"claude-opus-4-0":   {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
		"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-sonnet-4-0": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-3-5-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25},
		"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1},
		"claude-3-haiku":    {Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.30},
		"claude-3-opus":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	}
}

// Default returns the bundled table (a new map each call).
func Default() Table { return bundled() }

// Load returns the bundled table with the `pricing:` section of cfg laid
// over it (a model there replaces the bundled price or adds one):
//
//	pricing:
//	  claude-opus-5-5: {input: 5, output: 25, cache_read: 0.5, cache_write: 6.25}
//
// A section that does not parse gives the bundled table and the error.
func Load(cfg *config.Config) (Table, error) {
	t := Default()
	if cfg == nil {
		return t, nil
	}
	var over map[string]Price
	if err := cfg.Section("pricing", &over); err != nil {
		return t, err
	}
	for k, p := range over {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return Default(), fmt.Errorf("%s: pricing: %s: a negative price", cfg.Path, k)
		}
		t[Key(k)] = p
	}
	return t, nil
}

// Key is the table key of a model id: lower case, without a "[1m]"-style
// variant or a date suffix. "claude-sonnet-4-5-20250929[1m]" is
// "claude-sonnet-4-5". Nothing else is stripped, so "claude-opus-4-6" is
// never priced as "claude-opus-4".
func Key(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i]
	}
	// A date suffix: "-" and eight digits.
	if n := len(m); n > 9 && m[n-9] == '-' && strings.Trim(m[n-8:], "0123456789") == "" {
		m = m[:n-9]
	}
	return m
}

// Lookup returns the price of a model id.
func (t Table) Lookup(model string) (Price, bool) {
	p, ok := t[Key(model)]
	return p, ok
}

// Estimate is a session's estimated cost.
type Estimate struct {
	// USD is the estimate in US dollars; meaningful only when Priced.
	USD float64
	// Priced is true when every model with tokens has a price (and there
	// are tokens).
	Priced bool
	// Unpriced lists the models with tokens and no price, sorted.
	Unpriced []string
}

// Cost prices the tokens: by model when the transcript reader split them
// (Tokens.ByModel), else all at model (the session's model, for states
// written before the split).
func (t Table) Cost(tok state.Tokens, model string) Estimate {
	by := tok.ByModel
	if len(by) == 0 {
		if satmath.Sum(tok.Input, tok.Output, tok.CacheRead, tok.CacheCreation) == 0 {
			return Estimate{}
		}
		by = map[string]state.ModelUsage{model: {Input: tok.Input, Output: tok.Output, CacheRead: tok.CacheRead, CacheCreation: tok.CacheCreation}}
	}
	var e Estimate
	used := false
	for _, m := range slices.Sorted(maps.Keys(by)) {
		u := by[m]
		if satmath.Sum(u.Input, u.Output, u.CacheRead, u.CacheCreation) == 0 {
			continue
		}
		used = true
		p, ok := t.Lookup(m)
		if !ok {
			if m == "" {
				m = "unknown"
			}
			e.Unpriced = append(e.Unpriced, m)
			continue
		}
		e.USD += (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
			float64(u.CacheRead)*p.CacheRead + float64(u.CacheCreation)*p.CacheWrite) / 1e6
	}
	e.Priced = used && len(e.Unpriced) == 0
	if !e.Priced {
		e.USD = 0
	}
	return e
}

// Format writes an amount in dollars for people: "$0.42", "$12.30",
// "$1,234", "<$0.01".
func Format(usd float64) string {
	switch {
	case usd < 0.005:
		return "<$0.01"
	case usd < 1000:
		return fmt.Sprintf("$%.2f", usd)
	}
	s := fmt.Sprintf("%.0f", usd)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return "$" + b.String()
}
