// Package pricing owns what a session's tokens cost: a bundled table of
// per-model prices (Claude Code 2.1.330's own catalogue, table.go),
// overridable in the `pricing:` section of .spcstr/config.yaml, and the
// estimate of a session's cost from its token counts, priced the way
// Claude Code prices each message: input, output, cache reads, 5-minute
// and 1-hour cache writes apart, by model, with the long-prompt tier and
// the inference_geo surcharge of the messages that had them (their usage
// is kept under a variant key, VariantKey). A model the table does not
// know is never guessed at: the estimate is then the known part, a lower
// bound, with the unpriced models named. docs/cost.md is the contract.
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

// Price is one model's price in US dollars per million tokens (WebSearch:
// per search). CacheWrite is the 5-minute cache write price and
// CacheWrite1h the 1-hour one (0 in an override: 1.6 × CacheWrite, the
// ratio of every Anthropic tier). LongPrompt, when set, replaces the token
// rates of a message whose prompt is larger than LongPrompt.Above.
type Price struct {
	Input        float64     `yaml:"input" json:"input"`
	Output       float64     `yaml:"output" json:"output"`
	CacheRead    float64     `yaml:"cache_read" json:"cache_read"`
	CacheWrite   float64     `yaml:"cache_write" json:"cache_write"`
	CacheWrite1h float64     `yaml:"cache_write_1h" json:"cache_write_1h"`
	WebSearch    float64     `yaml:"web_search" json:"web_search"`
	LongPrompt   *LongPrompt `yaml:"-" json:"-"`
	// ContextWindow is the model's context window in tokens (0: unknown).
	ContextWindow int64 `yaml:"context_window" json:"context_window"`
}

// LongPrompt is a model's long-prompt tier: the rates of a message whose
// prompt (input + cache read + cache write tokens) is above Above.
type LongPrompt struct {
	Above        int64
	Input        float64
	Output       float64
	CacheRead    float64
	CacheWrite   float64
	CacheWrite1h float64
}

// Table maps a model id without its date suffix ("claude-sonnet-4-5") to
// its price.
type Table map[string]Price

// bundled is Claude Code's catalogue as a table. It is built when asked
// for, not at package init: the binary that runs every hook links this
// package and must not pay for it.
func bundled() Table {
	t := Table{}
	for id, c := range models() {
		p := c.price
		p.ContextWindow = c.window
		t[id] = p
	}
	return t
}

// Default returns the bundled table (a new map each call).
func Default() Table { return bundled() }

// Load returns the bundled table with the `pricing:` section of cfg laid
// over it (a model there replaces the bundled price or adds one):
//
//	pricing:
//	  claude-opus-5-5: {input: 4, output: 20, cache_read: 0.2, cache_write: 5, cache_write_1h: 8}
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
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 || p.CacheWrite1h < 0 || p.WebSearch < 0 || p.ContextWindow < 0 {
			return Default(), fmt.Errorf("%s: pricing: %s: a negative price", cfg.Path, k)
		}
		if p.CacheWrite1h == 0 {
			p.CacheWrite1h = 1.6 * p.CacheWrite
		}
		if p.ContextWindow == 0 {
			p.ContextWindow = t[Key(k)].ContextWindow
		}
		t[Key(k)] = p
	}
	return t, nil
}

// Key is the table key of a model id: lower case, without a "[1m]"-style
// variant, a date suffix or the variant marks of VariantKey.
// "claude-sonnet-4-5-20250929[1m]" is "claude-sonnet-4-5". Nothing else
// is stripped, so "claude-opus-4-6" is never priced as "claude-opus-4".
func Key(model string) string {
	m, _, _ := SplitVariant(model)
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i]
	}
	// A date suffix: "-" and eight digits.
	if n := len(m); n > 9 && m[n-9] == '-' && strings.Trim(m[n-8:], "0123456789") == "" {
		m = m[:n-9]
	}
	return m
}

// canonical is Key with the short aliases ("opus") resolved.
func canonical(model string) string {
	k := Key(model)
	if a, ok := aliases[k]; ok {
		return a
	}
	return k
}

// Variant marks of a usage key (see VariantKey).
const (
	markLong = "+long"
	markUS   = "+us"
)

// VariantKey is the key under which a message's usage is kept: its model,
// marked "+long" when the prompt is above the model's long-prompt tier
// and "+us" when Claude Code surcharges its inference_geo. Usage under one
// key is priced at one rate, so summing messages first loses nothing.
func VariantKey(model, geo string, prompt int64) string {
	k := model
	if a := LongPromptAbove(model); a > 0 && prompt > a {
		k += markLong
	}
	if geo == "us" {
		k += markUS
	}
	return k
}

// SplitVariant splits a usage key into its model and variant marks.
func SplitVariant(key string) (model string, long, us bool) {
	model = key
	if m, ok := strings.CutSuffix(model, markUS); ok {
		model, us = m, true
	}
	if m, ok := strings.CutSuffix(model, markLong); ok {
		model, long = m, true
	}
	return model, long, us
}

// Lookup returns the price of a model id (or alias).
func (t Table) Lookup(model string) (Price, bool) {
	if p, ok := t[Key(model)]; ok {
		return p, true
	}
	p, ok := t[canonical(model)]
	return p, ok
}

// ContextWindow returns a model's context window: 1,000,000 for a "[1m]"
// variant, the table's figure for a known model, else def.
func (t Table) ContextWindow(model string, def int64) int64 {
	if strings.Contains(model, "[1m]") {
		return 1_000_000
	}
	if p, ok := t.Lookup(model); ok && p.ContextWindow > 0 {
		return p.ContextWindow
	}
	return def
}

// ContextWindow is Table.ContextWindow of the bundled catalogue without
// building the table (the recorder calls it on every hook).
func ContextWindow(model string, def int64) int64 {
	if strings.Contains(model, "[1m]") {
		return 1_000_000
	}
	if c, ok := models()[canonical(model)]; ok {
		return c.window
	}
	return def
}

// Estimate is a cost estimate.
type Estimate struct {
	// USD is the cost of the priced models' tokens in US dollars: the
	// whole estimate when Priced, a lower bound when Unpriced is not
	// empty.
	USD float64
	// Priced is true when every model with tokens has a price (and there
	// are tokens).
	Priced bool
	// Unpriced lists the models with tokens and no price, sorted.
	Unpriced []string
}

// Known reports whether the estimate has a figure: every model priced,
// or a lower bound from the priced ones.
func (e Estimate) Known() bool { return e.Priced || (len(e.Unpriced) > 0 && e.USD > 0) }

// String writes the estimate for people: "$0.42", or "≥ $0.42, 1 model
// unpriced" for a lower bound, or "" when there is no figure.
func (e Estimate) String() string {
	switch {
	case e.Priced:
		return Format(e.USD)
	case len(e.Unpriced) > 0 && e.USD > 0:
		n := "model"
		if len(e.Unpriced) > 1 {
			n = "models"
		}
		return fmt.Sprintf("≥ %s, %d %s unpriced", Format(e.USD), len(e.Unpriced), n)
	}
	return ""
}

// Cost prices the tokens: by usage key when the transcript reader split
// them (Tokens.ByModel), else all at model (the session's model, for
// states written before the split).
func (t Table) Cost(tok state.Tokens, model string) Estimate {
	by := tok.ByModel
	if len(by) == 0 {
		if satmath.Sum(tok.Input, tok.Output, tok.CacheRead, tok.CacheCreation) == 0 {
			return Estimate{}
		}
		by = map[string]state.ModelUsage{model: {Input: tok.Input, Output: tok.Output, CacheRead: tok.CacheRead, CacheCreation: tok.CacheCreation}}
	}
	return t.CostByModel(by)
}

// CostByModel prices usage kept by usage key (VariantKey).
func (t Table) CostByModel(by map[string]state.ModelUsage) Estimate {
	var e Estimate
	used := false
	unpriced := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(by)) {
		u := by[k]
		if satmath.Sum(u.Input, u.Output, u.CacheRead, u.CacheCreation, u.WebSearches) == 0 {
			continue
		}
		used = true
		m, long, us := SplitVariant(k)
		p, ok := t.Lookup(m)
		if !ok {
			if m == "" {
				m = "unknown"
			}
			unpriced[m] = true
			continue
		}
		e.USD += p.Message(u, long, us)
	}
	e.Unpriced = slices.Sorted(maps.Keys(unpriced))
	if len(e.Unpriced) == 0 {
		e.Unpriced = nil
	}
	e.Priced = used && len(e.Unpriced) == 0
	return e
}

// Message is the cost in dollars of usage at this price, as Claude Code
// computes it for one message: long selects the long-prompt rates (when
// the model has them), us the inference_geo surcharge. The 1-hour part of
// the cache writes is priced at the 1-hour rate, the rest at the 5-minute
// rate; web searches are not surcharged.
func (p Price) Message(u state.ModelUsage, long, us bool) float64 {
	in, out, read, w5, w1 := p.Input, p.Output, p.CacheRead, p.CacheWrite, p.CacheWrite1h
	if long && p.LongPrompt != nil {
		l := p.LongPrompt
		in, out, read, w5, w1 = l.Input, l.Output, l.CacheRead, l.CacheWrite, l.CacheWrite1h
	}
	h := min(max(u.CacheWrite1h, 0), max(u.CacheCreation, 0))
	usd := (float64(u.Input)*in + float64(u.Output)*out + float64(u.CacheRead)*read +
		float64(u.CacheCreation-h)*w5 + float64(h)*w1) / 1e6
	if us {
		usd *= GeoSurcharge
	}
	return usd + float64(u.WebSearches)*p.WebSearch
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
