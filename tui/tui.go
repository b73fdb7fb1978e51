// Package tui is spcstr's live dashboard (spcstr tui): a Bubble Tea program
// that shows a project's Claude Code sessions from the files the recorder
// writes under .spcstr/, and follows them as they change. The root model
// (model.go) only routes: what is read goes to the session store (package
// store, no Bubble Tea in it), keys and the mouse to the focused pane (one
// package per pane), and the chrome around the panes (header, footer, help)
// is drawn in chrome.go. All file reading happens in tea.Cmds (load.go),
// changes arrive from fsnotify (package watch), and every style comes from
// package theme. It never imports the recorder: the two meet only in files.
package tui

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/loop"
	"github.com/dylan-gluck/spcstr/tui/reqs"
)

// Options configures the dashboard.
type Options struct {
	// Layout is the project (the folder holding .spcstr/).
	Layout state.Layout
	// RegistryPath is the session registry (default: registry.Path with
	// the process environment).
	RegistryPath string
	// RequirementsDir is watched for requirement changes (default:
	// RequirementsDir(Layout.Root)).
	RequirementsDir string
	// Requirements and Feedback load the two feature panes (default:
	// reqs.Load and loop.Load).
	Requirements reqs.Loader
	Feedback     loop.Loader
	// ReqActions implement the satisfy/clear keys (nil: reserved).
	ReqActions reqs.Actions
	// NoColor turns colors off (default: NO_COLOR is set and not empty).
	NoColor bool
	// Title is shown in the header after "spcstr" (e.g. "demo").
	Title string
	// Bell rings the terminal bell once when a session starts waiting
	// for the user (also: dashboard.bell in .spcstr/config.yaml).
	Bell bool
	// Notify sends a desktop notification when a session starts waiting
	// for the user or a long turn ends (also: dashboard.notify).
	Notify bool
	// Now and Alive are the clock and the process check (tests replace
	// them).
	Now   func() time.Time
	Alive func(pid int) bool
	// NoWatch disables fsnotify (tests that drive updates themselves).
	NoWatch bool
	// PermDir is the permission channel's folder (permchan.Dir): the
	// dashboard takes the project's lease there and answers its
	// permission prompts. "" answers none (tests, --no-answer).
	PermDir string
	// Back is set when the dashboard was opened from spcstr tui --all:
	// q ends it to go back to the projects (ctrl+c still quits).
	Back bool
}

func (o *Options) defaults() {
	if o.RegistryPath == "" {
		o.RegistryPath = registry.Path(os.Getenv)
	}
	if o.RequirementsDir == "" {
		o.RequirementsDir = RequirementsDir(o.Layout.Root)
	}
	if o.Requirements == nil {
		o.Requirements = reqs.Load
	}
	if o.Feedback == nil {
		o.Feedback = loop.Load
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Alive == nil {
		o.Alive = registry.Alive
	}
}

// RequirementActions are the real satisfy and clear actions of the
// requirements pane (Options.ReqActions), which write the same state file
// under the same lock as the hooks and spcstr req.
func RequirementActions() reqs.Actions { return reqs.DefaultActions() }

// NoColorEnv reports whether NO_COLOR asks for no color (any non-empty
// value, as https://no-color.org says).
func NoColorEnv(getenv func(string) string) bool { return getenv("NO_COLOR") != "" }

// FrameRate is how many times a second, at most, the dashboard's frame is
// written. Bubble Tea's renderer wakes at this rate even when nothing
// changed (to compare the frame with the last one), and on an idle
// dashboard those wake-ups are most of its CPU use: 15 keeps a change on
// screen within 67 ms of its Update at a quarter of the default 60's cost.
const FrameRate = 15

// Run shows the dashboard on the terminal until the user quits or ctx ends.
func Run(ctx context.Context, opt Options, in io.Reader, out io.Writer) error {
	_, err := run(ctx, opt, in, out)
	return err
}

// run is Run that also says whether the user asked to go back (Options.Back).
func run(ctx context.Context, opt Options, in io.Reader, out io.Writer) (back bool, err error) {
	m := New(ctx, opt)
	_, err = runProgram(ctx, m, m.opt.NoColor, in, out)
	m.shared.close()
	return m.shared.back, err
}
