package tui

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// sessionUsage is what a session's cost is computed from, kept between
// reads of spcstr tui --all until its state.json changes.
type sessionUsage struct {
	mod time.Time // state.json's, when it was read
	sum store.Summary
}

// projectCost sums what every session of a project cost: today's (the
// sessions whose last event was today) and in all, each session priced
// with the project's own price table (its config.yaml's pricing). A
// session's usage is read again only when its state.json changed, so a
// refresh of a project with many sessions reads only those that moved.
// The caller holds c.mu.
func (c *projCache) projectCost(l state.Layout, list []store.Listing, now time.Time) (today, all pricing.Total) {
	cfg, _ := config.Load(l.ConfigPath())
	prices, err := pricing.Load(cfg)
	if err != nil {
		prices = pricing.Default()
	}
	if c.usage == nil {
		c.usage = map[string]sessionUsage{}
	}
	for _, li := range list {
		k := l.Root + "\x00" + li.ID
		u, ok := c.usage[k]
		if !ok || !u.mod.Equal(li.ModTime) {
			sum, _ := store.LoadSession(l, li.ID, li.ModTime)
			if !sum.Loaded {
				continue
			}
			u = sessionUsage{mod: li.ModTime, sum: sum}
			c.usage[k] = u
		}
		addCost(&today, &all, summed(prices, u.sum), u.sum.LastAt, now)
	}
	return today, all
}
