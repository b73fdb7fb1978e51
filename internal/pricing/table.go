package pricing

import "sync"

// The catalogue of Claude Code 2.1.330 (the model prices it uses for its
// own total_cost_usd), in US dollars per million tokens, read out of the
// CLI: its pricing tiers and which model uses which. docs/cost.md says
// how to check it against a newer CLI.
var (
	haiku35 = Price{Input: 0.8, Output: 4, CacheWrite: 1, CacheWrite1h: 1.6, CacheRead: 0.08, WebSearch: 0.01}
	haiku45 = Price{Input: 1, Output: 5, CacheWrite: 1.25, CacheWrite1h: 2, CacheRead: 0.1, WebSearch: 0.01}
	haiku55 = Price{Input: 0.1, Output: 0.5, CacheWrite: 0.125, CacheWrite1h: 0.2, CacheRead: 0.01, WebSearch: 0.01,
		LongPrompt: &LongPrompt{Above: 100_000, Input: 0.5, Output: 2.5, CacheWrite: 0.625, CacheWrite1h: 1, CacheRead: 0.05}}
	tier2x10       = Price{Input: 2, Output: 10, CacheWrite: 2.5, CacheWrite1h: 4, CacheRead: 0.2, WebSearch: 0.01}
	tier2x10read10 = Price{Input: 2, Output: 10, CacheWrite: 2.5, CacheWrite1h: 4, CacheRead: 0.1, WebSearch: 0.01}
	tier3x15       = Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheWrite1h: 6, CacheRead: 0.3, WebSearch: 0.01}
	tier5x25       = Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheWrite1h: 10, CacheRead: 0.5, WebSearch: 0.01}
	tier15x75      = Price{Input: 15, Output: 75, CacheWrite: 18.75, CacheWrite1h: 30, CacheRead: 1.5, WebSearch: 0.01}
	tier10x50      = Price{Input: 10, Output: 50, CacheWrite: 12.5, CacheWrite1h: 20, CacheRead: 1, WebSearch: 0.01}
	tier10x50r25   = Price{Input: 10, Output: 50, CacheWrite: 12.5, CacheWrite1h: 20, CacheRead: 0.25, WebSearch: 0.01}
	tier4x20r20    = Price{Input: 4, Output: 20, CacheWrite: 5, CacheWrite1h: 8, CacheRead: 0.2, WebSearch: 0.01}
	tier8x40r20    = Price{Input: 8, Output: 40, CacheWrite: 10, CacheWrite1h: 16, CacheRead: 0.2, WebSearch: 0.01}
)

// catalogue is one model of Claude Code's catalogue: its price tier and
// its context window (tokens) without a "[1m]" suffix.
type catalogue struct {
	price  Price
	window int64
}

// models is Claude Code 2.1.330's catalogue, by model id, built at its
// first use (not at package init: most hooks never price) and shared:
// never modify it.
var models = sync.OnceValue(buildModels)

func buildModels() map[string]catalogue {
	const k200, m1 = 200_000, 1_000_000
	return map[string]catalogue{
		"claude-3-5-haiku":  {haiku35, k200},
		"claude-haiku-4-5":  {haiku45, k200},
		"claude-haiku-5-5":  {haiku55, m1},
		"claude-3-5-sonnet": {tier3x15, k200},
		"claude-3-7-sonnet": {tier3x15, k200},
		"claude-sonnet-4-0": {tier3x15, k200},
		"claude-sonnet-4-5": {tier3x15, k200},
		"claude-sonnet-4-6": {tier3x15, k200},
		"claude-sonnet-5":   {tier2x10, m1},
		"claude-sonnet-5-5": {tier2x10read10, m1},
		"claude-opus-4-0":   {tier15x75, k200},
		"claude-opus-4-1":   {tier15x75, k200},
		"claude-opus-4-5":   {tier5x25, k200},
		"claude-opus-4-6":   {tier5x25, k200},
		"claude-opus-4-7":   {tier5x25, m1},
		"claude-opus-4-8":   {tier5x25, m1},
		"claude-opus-5":     {tier5x25, m1},
		"claude-opus-5-5":   {tier4x20r20, m1},
		"claude-fable-5":    {tier10x50, m1},
		"claude-fable-5-1":  {tier10x50r25, m1},
		"claude-fable-5-2":  {tier8x40r20, m1},
		"claude-mythos-5":   {tier10x50, m1},
		"claude-mythos-5-1": {tier10x50r25, m1},
		"claude-mythos-5-2": {tier8x40r20, m1},
		// Older names Anthropic's API still answers to (dated ids without
		// the "-0"), at the price of the model they name.
		"claude-sonnet-4": {tier3x15, k200},
		"claude-opus-4":   {tier15x75, k200},
	}
}

// aliases maps the short model names Claude Code accepts to the model
// they stand for with Anthropic's API (its catalogue's first-party
// defaults).
var aliases = map[string]string{
	"opus":   "claude-opus-5-5",
	"sonnet": "claude-sonnet-5-5",
	"haiku":  "claude-haiku-5-5",
	"fable":  "claude-fable-5-2",
}

// GeoSurcharge is the factor Claude Code applies to a message's token
// cost when its usage.inference_geo is "us" (web searches excluded).
const GeoSurcharge = 1.1

// LongPromptAbove returns the prompt size (input, cache read and cache
// write tokens of one message) above which the model's long-prompt rates
// apply to the whole message, or 0 when the bundled catalogue gives it no
// long-prompt tier. The recorder calls it per message: it does not build
// the table.
func LongPromptAbove(model string) int64 {
	switch canonical(model) {
	case "claude-haiku-5-5":
		return haiku55.LongPrompt.Above
	}
	return 0
}
