package tui

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/search"
	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/sessions"
)

// The sessions filter also finds sessions by anything recorded (files,
// tools, agents, errors, prompts) with the engine of spcstr search
// (internal/search): a pause in typing starts a search of the event logs,
// whose answer adds the sessions found to those the filter matches by
// title.

// searchPause is how long typing must pause before the logs are searched.
const searchPause = 150 * time.Millisecond

// searchSessionsMax bounds the sessions one search reports.
const searchSessionsMax = 500

type (
	// searchWaitMsg: typing paused; search if the filter is still text.
	searchWaitMsg struct{ text string }
	// searchMsg: what a search of the logs found for text.
	searchMsg struct {
		text  string
		found sessions.Found
	}
)

// filterChanged schedules a search for the list's filter after a pause.
func (m *Model) filterChanged(before string) tea.Cmd {
	f := m.list.Filter()
	if f == before || !m.list.Searching() {
		return nil
	}
	return tea.Tick(searchPause, func(time.Time) tea.Msg { return searchWaitMsg{text: f} })
}

// searchCmd searches the project's event logs for text, one match per
// session.
func searchCmd(ctx context.Context, l state.Layout, text string) tea.Cmd {
	prefix := filepath.Clean(l.Root) + string(filepath.Separator)
	return func() tea.Msg {
		found := sessions.Found{}
		q := search.Query{Text: strings.TrimSpace(text), PerSession: true, Limit: searchSessionsMax}
		_, _ = search.Run(ctx, l, q, func(h search.Match) error {
			// "file_path: CHANGELOG.md" (the snippet is sanitised).
			field := strings.TrimPrefix(h.Field, "tool_input.")
			snip := strings.ReplaceAll(h.Snippet, prefix, "")
			if strings.HasSuffix(field, "path") && strings.HasPrefix(snip, "…") {
				// A path cut at its start: its file name says more.
				if i := strings.LastIndexAny(snip, `/\`); i >= 0 && i+1 < len(snip) {
					snip = snip[i+1:]
				}
			}
			found[h.SessionID] = field + ": " + snip
			return nil
		})
		return searchMsg{text: text, found: found}
	}
}

// onSearch handles the search's messages.
func (m *Model) onSearch(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchWaitMsg:
		if msg.text == m.list.Filter() && m.list.Searching() {
			return searchCmd(m.ctx, m.opt.Layout, msg.text)
		}
	case searchMsg:
		m.list.SetFound(msg.text, msg.found)
		return tea.Batch(m.selectionChanged()...)
	}
	return nil
}
