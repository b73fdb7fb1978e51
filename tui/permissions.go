package tui

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/observe"
	"github.com/dylan-gluck/spcstr/internal/permchan"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/card"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// The permission channel (internal/permchan): the dashboard takes the
// project's lease when it starts (Options.PermDir), each request a hook
// posts becomes a card (package card), and a request whose hook hangs up
// before an answer from here was answered in the terminal: its card is
// withdrawn and a decision record says so.

type permListenMsg struct {
	srv *permchan.Server
	err error
}

type permReqMsg struct{ p *permchan.Pending }

type permGoneMsg struct{ p *permchan.Pending }

type permRecordedMsg struct{ err error }

func permListenCmd(dir, root string, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		srv, err := permchan.Listen(dir, root, now)
		return permListenMsg{srv: srv, err: err}
	}
}

func permNextCmd(ctx context.Context, srv *permchan.Server) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-srv.Requests():
			return permReqMsg{p: p}
		case <-ctx.Done():
			return nil
		}
	}
}

func permGoneCmd(p *permchan.Pending) tea.Cmd {
	return func() tea.Msg {
		<-p.Gone()
		return permGoneMsg{p: p}
	}
}

// permRecordCmd appends the decision record of a prompt answered in the
// terminal to the project's decisions log.
func permRecordCmd(l state.Layout, p *permchan.Pending, now time.Time) tea.Cmd {
	r := p.Request
	rec := gate.UserAnswer(observe.NewRequestID(), r.SessionID, now, gate.SourceTerminal, gate.Ask,
		gate.ReasonAnsweredInTerm, "", now.Sub(r.AskedAt))
	return func() tea.Msg {
		data, err := json.Marshal(rec)
		if err == nil {
			err = logs.Append(context.Background(), l.LogPath(logs.Name(logs.Decisions, "")), data, logs.Options{})
		}
		return permRecordedMsg{err: err}
	}
}

// withdrawAnswered withdraws the cards of prompts the terminal answered
// while their hooks still wait (Claude Code does not always end them): a
// session recorded an event after the request and no longer needs
// permission. The hook is told to leave it (it returns no answer).
func (m *Model) withdrawAnswered() []tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.card.Waiting() {
		sum, ok := m.st.Summary(p.Request.SessionID)
		if !ok || !sum.LastAt.After(p.Request.AskedAt) || m.st.Display(sum) == store.StatusPermission {
			continue
		}
		m.card.Remove(p)
		m.flash("answered in the terminal: " + card.Subject(p.Request))
		cmds = append(cmds, func() tea.Msg { p.Leave(); return nil }, permRecordCmd(m.opt.Layout, p, m.now()))
	}
	return cmds
}

// permUpdate handles the channel's messages and the card's results; ok is
// false for any other message.
func (m *Model) permUpdate(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case permListenMsg:
		switch {
		case errors.Is(msg.err, permchan.ErrLeaseHeld):
			m.flash("another dashboard answers this project's permission prompts")
		case msg.err != nil:
			m.flash("cannot answer permission prompts here: " + msg.err.Error())
		default:
			m.shared.mu.Lock()
			m.shared.perm = msg.srv
			m.shared.mu.Unlock()
			return permNextCmd(m.ctx, msg.srv), true
		}
	case permReqMsg:
		m.card.Add(msg.p)
		return tea.Batch(permNextCmd(m.ctx, m.shared.permServer()), permGoneCmd(msg.p)), true
	case permGoneMsg:
		if m.card.Sent(msg.p) {
			return nil, true // the answer's own result says what happened
		}
		if m.card.Remove(msg.p) {
			if msg.p.Expired() {
				m.flash("timed out, left to the terminal: " + card.Subject(msg.p.Request))
				return nil, true
			}
			m.flash("answered in the terminal: " + card.Subject(msg.p.Request))
			return permRecordCmd(m.opt.Layout, msg.p, m.now()), true
		}
	case card.RepliedMsg:
		m.card.Remove(msg.P)
		what := card.Subject(msg.P.Request)
		switch {
		case msg.Err != nil:
			m.flash("not answered (" + msg.Err.Error() + "): " + what)
		case msg.Answer.Behavior == permchan.Deny:
			m.flash("denied: " + what)
		case msg.Answer.Always:
			m.flash("always allowed: " + what)
		default:
			m.flash("allowed once: " + what)
		}
	case card.LeftMsg:
		m.card.Remove(msg.P)
		m.flash("left to the terminal: " + card.Subject(msg.P.Request))
	case permRecordedMsg:
		if msg.err != nil {
			m.flash("decision record: " + msg.err.Error())
		}
	default:
		return nil, false
	}
	return nil, true
}
