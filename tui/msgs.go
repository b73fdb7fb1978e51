package tui

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/data"
	"github.com/dylan-gluck/spcstr/tui/feedback"
	"github.com/dylan-gluck/spcstr/tui/requirements"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

type (
	// listingMsg: the session folders found.
	listingMsg struct {
		list    []data.Listing
		err     error
		missing bool // the project has no .spcstr/
	}
	// summariesMsg: summaries read for some sessions, and the whole
	// state of those asked for (nil when unreadable).
	summariesMsg struct {
		sums   []data.Summary
		states map[string]*state.Session
		// next holds the sessions still to read at startup.
		next []data.Listing
		// startup marks the chunked first reading; queued marks a reread
		// issued by loadSessions (only one runs at a time).
		startup, queued bool
	}
	registryMsg struct {
		reg   registry.File
		alive map[int]bool
	}
	aliveMsg struct{ alive map[int]bool }
	tailMsg  struct {
		evs     []data.Event
		offsets data.Offsets
		initial bool
	}
	historyMsg struct {
		id  string
		evs []data.Event
	}
	reqMsg struct {
		id   string
		view requirements.View
	}
	feedbackMsg struct {
		id   string
		view feedback.View
	}
	watchStartedMsg struct {
		w   *watch.Watcher
		err error
	}
	// strategiesMsg: the project's enabled strategies, read from
	// .spcstr/config.yaml.
	strategiesMsg struct {
		active   []strategy.Info
		dryRun   bool // the whole config is dry-run
		conflict bool // strategy.Validate reports a conflict
		err      error
	}
	changeMsg     struct{ c watch.Change }
	watchEndedMsg struct{}
	tickMsg       time.Time
	actionDoneMsg struct {
		text string
		err  error
	}
)
