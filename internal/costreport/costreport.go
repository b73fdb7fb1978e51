// Package costreport owns `spcstr cost`'s reports: what the recorded
// sessions of every project cost, grouped by day, week, month, project,
// model or 5-hour block, over a time range. Each session adds what it
// spent itself: its figure (pricing.Table.Session: Claude Code's live or
// final figure, else spcstr's estimate) less what it inherited as a fork
// (pricing.Table.Summed), so the report's total equals the sum of the
// sessions' usd − inherited_usd in `spcstr export`, and a lineage counts
// once. docs/cost.md is the contract.
package costreport

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// Groupings (Options.By).
const (
	ByDay     = "day"
	ByWeek    = "week"
	ByMonth   = "month"
	ByProject = "project"
	ByModel   = "model"
	ByBlock   = "block"
)

// Groupings lists every grouping, in the order help shows them.
var Groupings = []string{ByDay, ByWeek, ByMonth, ByProject, ByModel, ByBlock}

// BlockHours is the length of a usage block (Claude's 5-hour window).
const BlockHours = 5

// Options choose what a report covers.
type Options struct {
	// By is one of Groupings.
	By string
	// Since and Until bound the sessions by their last event (zero: open).
	Since, Until time.Time
	// Loc is the time zone days, weeks and months are cut in (nil: Local).
	Loc *time.Location
}

// Report is a report, as `spcstr cost --json` prints it.
type Report struct {
	By string `json:"by"`
	// TotalUSD is what every session in range spent itself: the sum of
	// their figures less what forks inherited.
	TotalUSD float64 `json:"total_usd"`
	// LowerBound is set when a session in the total had a model without a
	// price (the total counts the priced part); Estimate when one was
	// spcstr's estimate rather than Claude Code's figure.
	LowerBound bool    `json:"lower_bound"`
	Estimate   bool    `json:"estimate"`
	Sessions   int     `json:"sessions"`
	Groups     []Group `json:"groups"`
	// Unreadable counts sessions whose state could not be read.
	Unreadable int `json:"unreadable"`
}

// Group is one row of a report.
type Group struct {
	Key      string  `json:"key"`
	USD      float64 `json:"usd"`
	Sessions int     `json:"sessions"`
}

// item is one session's contribution.
type item struct {
	project    string
	start, end time.Time
	usd        float64
	models     map[string]float64
}

// Build reports over the sessions of the project roots.
func Build(roots []string, opt Options) (*Report, error) {
	if !slices.Contains(Groupings, opt.By) {
		return nil, fmt.Errorf("--by %q: want one of %v", opt.By, Groupings)
	}
	if opt.Loc == nil {
		opt.Loc = time.Local
	}
	r := &Report{By: opt.By, Groups: []Group{}}
	var items []item
	for _, root := range roots {
		l := state.Layout{Root: root}
		ids, err := l.SessionIDs()
		if err != nil {
			continue
		}
		cfg, _ := config.Load(l.ConfigPath())
		prices, err := pricing.Load(cfg)
		if err != nil {
			prices = pricing.Default()
		}
		for _, id := range ids {
			s, err := l.Load(id)
			if err != nil {
				r.Unreadable++
				continue
			}
			end := s.LastEventAt
			if end.IsZero() {
				end = s.UpdatedAt
			}
			if (!opt.Since.IsZero() && end.Before(opt.Since)) || (!opt.Until.IsZero() && !end.Before(opt.Until)) {
				continue
			}
			sc := prices.Summed(s)
			if !sc.Known() && len(sc.Unpriced) == 0 {
				continue // no tokens at all
			}
			it := item{project: root, start: s.CreatedAt, end: end, usd: sc.USD, models: map[string]float64{}}
			left := sc.USD
			for _, m := range sc.Models {
				if own := m.USD - m.InheritedUSD; own > 0 {
					it.models[m.Model] += own
					left -= own
				}
			}
			if math.Abs(left) > 1e-9 { // no split (a live figure) or a rounding rest
				name := s.Model
				if name == "" {
					name = "unknown"
				}
				it.models[name] += left
			}
			items = append(items, it)
			r.TotalUSD += sc.USD
			r.Sessions++
			r.LowerBound = r.LowerBound || !sc.Priced
			r.Estimate = r.Estimate || sc.Source == pricing.SourceEstimate
		}
	}
	groups := map[string]*Group{}
	add := func(key string, usd float64) {
		g := groups[key]
		if g == nil {
			g = &Group{Key: key}
			groups[key] = g
		}
		g.USD += usd
		g.Sessions++
	}
	switch opt.By {
	case ByModel:
		for _, it := range items {
			for m, usd := range it.models {
				add(m, usd)
			}
		}
	case ByBlock:
		for _, b := range blocks(items) {
			add(b.key, b.usd)
			groups[b.key].Sessions = b.n
		}
	default:
		for _, it := range items {
			add(key(opt.By, it, opt.Loc), it.usd)
		}
	}
	for _, g := range groups {
		r.Groups = append(r.Groups, *g)
	}
	sort.Slice(r.Groups, func(i, j int) bool {
		if opt.By == ByProject || opt.By == ByModel {
			if r.Groups[i].USD != r.Groups[j].USD {
				return r.Groups[i].USD > r.Groups[j].USD
			}
		}
		return r.Groups[i].Key < r.Groups[j].Key
	})
	return r, nil
}

// key is a session's group for the calendar and project groupings.
func key(by string, it item, loc *time.Location) string {
	t := it.end.In(loc)
	switch by {
	case ByWeek:
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case ByMonth:
		return t.Format("2006-01")
	case ByProject:
		return filepath.Clean(it.project)
	}
	return t.Format(time.DateOnly)
}

type block struct {
	key string
	usd float64
	n   int
}

// blocks groups sessions into 5-hour blocks as ccusage does: a block
// starts at the hour (UTC) of the first session that starts outside the
// previous block, and holds the sessions that start within five hours of
// it.
func blocks(items []item) []block {
	sorted := slices.Clone(items)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].start.Before(sorted[j].start) })
	var out []block
	var start time.Time
	for _, it := range sorted {
		if len(out) == 0 || !it.start.Before(start.Add(BlockHours*time.Hour)) {
			start = it.start.UTC().Truncate(time.Hour)
			out = append(out, block{key: start.Format("2006-01-02T15:04Z")})
		}
		b := &out[len(out)-1]
		b.usd += it.usd
		b.n++
	}
	return out
}
