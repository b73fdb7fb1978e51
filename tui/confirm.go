package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/tui/reqs"
)

// A key that changes gate state (the Reqs pane's s, S and x) asks first:
// the footer holds one line naming the requirement and its scope, ending in
// y/n; y runs the action, any other key cancels it.

// askAction holds a requirement action until it is confirmed; it says why
// when the action cannot run at all.
func (m *Model) askAction(a reqs.ActionMsg) {
	switch {
	case m.actionFor(a.Kind) == nil:
		m.flash("satisfy and clear are " + reqs.ComingSoon)
	case a.Name == "":
		m.flash("no requirement selected")
	default:
		m.confirm = &a
		m.gen++
	}
}

// confirmKey answers the pending question with k.
func (m Model) confirmKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	a := *m.confirm
	m.confirm = nil
	m.gen++
	switch k.String() {
	case "ctrl+c":
		return m, tea.Quit
	case "y", "Y":
		return m, m.runAction(a)
	}
	m.flash("not changed: " + a.Name)
	return m, nil
}

// confirmLine is the question shown in the footer ("" when none).
func (m Model) confirmLine() string {
	if m.confirm == nil {
		return ""
	}
	return m.confirm.Question(m.req.Branch())
}

func (m *Model) actionFor(kind string) reqs.Action {
	switch kind {
	case "satisfy-session":
		return m.opt.ReqActions.SatisfySession
	case "satisfy-branch":
		return m.opt.ReqActions.SatisfyBranch
	case "clear":
		return m.opt.ReqActions.Clear
	}
	return nil
}
