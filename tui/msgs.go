package tui

import (
	"time"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/tui/loop"
	"github.com/dylan-gluck/spcstr/tui/notify"
	"github.com/dylan-gluck/spcstr/tui/reqs"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/timeline"
	"github.com/dylan-gluck/spcstr/tui/watch"
)

type (
	// listingMsg: the session folders found.
	listingMsg struct {
		list    []store.Listing
		err     error
		missing bool // the project has no .spcstr/
	}
	// sessionsMsg: summaries read for some sessions, and the whole
	// state of those asked for.
	sessionsMsg struct{ store.Sessions }
	registryMsg struct {
		reg   registry.File
		alive map[int]bool
	}
	aliveMsg   struct{ alive map[int]bool }
	tailMsg    struct{ store.Tail }
	historyMsg struct{ store.SessionHistory }
	// customMsg: the custom observability events of one session.
	customMsg struct {
		id  string
		evs []store.Event
	}
	reqMsg struct {
		id   string
		view reqs.View
	}
	feedbackMsg struct {
		id   string
		view loop.View
	}
	watchStartedMsg struct {
		w   *watch.Watcher
		err error
	}
	// strategiesMsg: the project's enabled strategies and its price
	// table, read from .spcstr/config.yaml.
	strategiesMsg struct {
		prices pricing.Table
		bell   bool // dashboard.bell
		active []strategy.Info
		dryRun bool // the whole config is dry-run
		// off names the strategies a config problem leaves out (a closed
		// one is not off: it fails closed on its hooks).
		off []string
		// closing names the strategies whose settings cannot be used and
		// whose fail mode is closed: they deny or block all they cover.
		closing []string
		err     error
		// dashboard.notify and how notices are delivered.
		notify    bool
		method    notify.Method
		methodErr error
		inTmux    bool
		longTurn  time.Duration
	}
	// timelineMsg: the timeline's lanes, read.
	timelineMsg struct {
		lanes []timeline.Lane
		since time.Time
	}
	// notifyRawMsg: a notification's escape sequence, for the terminal.
	notifyRawMsg struct{ seq string }
	// notifyErrMsg: a notification that could not be delivered.
	notifyErrMsg struct{ err error }
	// entryMsg: the raw log entry of an event opened in full.
	entryMsg struct {
		ev  store.Event
		raw []byte
		ok  bool
		// answer is what the hook answered to the event (nil: nothing
		// on record, or not an event).
		answer *logs.Answer
	}
	// focusDoneMsg: what o did, or why it could not.
	focusDoneMsg struct {
		did string
		err error
	}
	changeMsg     struct{ c watch.Change }
	watchEndedMsg struct{}
	tickMsg       time.Time
	actionDoneMsg struct {
		text string
		err  error
	}
)
