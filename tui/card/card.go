// Package card is the dashboard's permission card: the permission prompts
// the project's PermissionRequest hooks posted (internal/permchan), oldest
// first, each shown with its tool, command or file, a short preview, the
// working folder, the session's title and how long it has waited. While a
// card is up it has the keyboard: y allows once, n denies, m denies with a
// typed message, a always allows (Claude Code's own suggested rule), esc
// leaves the prompt to the terminal. Answers are sent by tea.Cmds.
package card

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/permchan"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// KeyMap is the card's keys.
type KeyMap struct {
	Allow, Deny, Message, Always, Leave, Send, Cancel key.Binding
}

// DefaultKeyMap returns the card's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Allow:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "allow once")),
		Deny:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "deny")),
		Message: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "deny with a message")),
		Always:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "always allow")),
		Leave:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave it to the terminal")),
		Send:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "deny with this message")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// RepliedMsg is the result of sending an answer: Err is nil when the hook
// took it.
type RepliedMsg struct {
	P      *permchan.Pending
	Answer permchan.Answer
	Err    error
}

// LeftMsg says a prompt was left to the terminal (esc).
type LeftMsg struct{ P *permchan.Pending }

type item struct {
	p    *permchan.Pending
	sent bool
}

// Model is the card (one pane-sized component).
type Model struct {
	Keys   KeyMap
	styles *theme.Styles
	now    func() time.Time
	queue  []*item
	w, h   int
	typing bool
	// msg is the deny message being typed.
	msg []rune
}

// maxMessage bounds a typed deny message (runes).
const maxMessage = 500

// New returns an empty card.
func New(st *theme.Styles, now func() time.Time) *Model {
	return &Model{Keys: DefaultKeyMap(), styles: st, now: now}
}

// SetSize sets the card's size.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
}

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st }

// Add queues a posted prompt.
func (m *Model) Add(p *permchan.Pending) {
	m.queue = append(m.queue, &item{p: p})
	sort.SliceStable(m.queue, func(i, j int) bool {
		return m.queue[i].p.Request.AskedAt.Before(m.queue[j].p.Request.AskedAt)
	})
}

// Remove drops p; it reports whether it was queued and not answered here
// (the terminal answered it, or it timed out).
func (m *Model) Remove(p *permchan.Pending) (unanswered bool) {
	for i, it := range m.queue {
		if it.p == p {
			if i == 0 {
				m.typing, m.msg = false, nil
			}
			m.queue = append(m.queue[:i], m.queue[i+1:]...)
			return !it.sent
		}
	}
	return false
}

// Sent reports whether an answer to p is on its way.
func (m *Model) Sent(p *permchan.Pending) bool {
	for _, it := range m.queue {
		if it.p == p {
			return it.sent
		}
	}
	return false
}

// Waiting lists the prompts not answered here yet.
func (m *Model) Waiting() []*permchan.Pending {
	var out []*permchan.Pending
	for _, it := range m.queue {
		if !it.sent {
			out = append(out, it.p)
		}
	}
	return out
}

// Active reports whether a card is up.
func (m *Model) Active() bool { return len(m.queue) > 0 }

// Len is how many prompts wait.
func (m *Model) Len() int { return len(m.queue) }

// Typing reports whether a deny message is being typed.
func (m *Model) Typing() bool { return m.typing }

// Current is the prompt shown (nil when none).
func (m *Model) Current() *permchan.Pending {
	if len(m.queue) == 0 {
		return nil
	}
	return m.queue[0].p
}

// Update handles a key while the card is up.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.queue) == 0 {
		return nil
	}
	it := m.queue[0]
	if m.typing {
		switch {
		case key.Matches(k, m.Keys.Cancel):
			m.typing, m.msg = false, nil
		case key.Matches(k, m.Keys.Send):
			msg := strings.TrimSpace(text.Sanitize(string(m.msg)))
			m.typing, m.msg = false, nil
			return m.send(it, permchan.Answer{Behavior: permchan.Deny, Message: msg})
		case k.String() == "backspace":
			if len(m.msg) > 0 {
				m.msg = m.msg[:len(m.msg)-1]
			}
		case k.Text != "" && len(m.msg) < maxMessage:
			m.msg = append(m.msg, []rune(k.Text)...)
		}
		return nil
	}
	if it.sent {
		return nil
	}
	switch {
	case key.Matches(k, m.Keys.Allow):
		return m.send(it, permchan.Answer{Behavior: permchan.Allow})
	case key.Matches(k, m.Keys.Deny):
		return m.send(it, permchan.Answer{Behavior: permchan.Deny})
	case key.Matches(k, m.Keys.Always):
		return m.send(it, permchan.Answer{Behavior: permchan.Allow, Always: len(it.p.Request.Suggestions) > 0})
	case key.Matches(k, m.Keys.Message):
		m.typing, m.msg = true, nil
		return nil
	case key.Matches(k, m.Keys.Leave):
		it.sent = true
		p := it.p
		return func() tea.Msg {
			p.Leave()
			return LeftMsg{P: p}
		}
	}
	return nil
}

func (m *Model) send(it *item, a permchan.Answer) tea.Cmd {
	it.sent = true
	p := it.p
	return func() tea.Msg {
		return RepliedMsg{P: p, Answer: a, Err: p.Reply(a)}
	}
}

// ShortHelp is the footer's keys.
func (m *Model) ShortHelp() []key.Binding {
	if m.typing {
		return []key.Binding{m.Keys.Send, m.Keys.Cancel}
	}
	return []key.Binding{m.Keys.Allow, m.Keys.Deny, m.Keys.Message, m.Keys.Always, m.Keys.Leave}
}

// FullHelp is the help overlay's keys.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Allow, m.Keys.Deny, m.Keys.Message, m.Keys.Always, m.Keys.Leave}}
}

// ClockKey is what the card shows that changes with the time alone.
func (m *Model) ClockKey(now time.Time) string {
	if p := m.Current(); p != nil {
		return waited(now.Sub(p.Request.AskedAt))
	}
	return ""
}

// waited is how long a request has waited, in the whole seconds the card
// redraws by ("0s", "14s", "2m05s"): a tenth would always read ".0".
func waited(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return text.Duration(d)
}

// Subject is what a prompt asks, for people: "Bash `npm publish`".
func Subject(r permchan.Request) string {
	what, _ := subject(r)
	if what == "" {
		return text.Sanitize(r.ToolName)
	}
	return text.Sanitize(r.ToolName) + " `" + what + "`"
}

// subject is the command, file or URL of a prompt and the preview lines.
func subject(r permchan.Request) (string, []string) {
	var in map[string]any
	_ = json.Unmarshal(r.ToolInput, &in)
	str := func(k string) string {
		s, _ := in[k].(string)
		return s
	}
	var what string
	for _, k := range []string{"command", "file_path", "notebook_path", "url", "pattern", "query", "skill"} {
		if s := str(k); s != "" {
			what = s
			break
		}
	}
	var preview []string
	switch {
	case str("old_string") != "" || str("new_string") != "":
		for _, l := range lines(str("old_string"), 6) {
			preview = append(preview, "- "+l)
		}
		for _, l := range lines(str("new_string"), 6) {
			preview = append(preview, "+ "+l)
		}
	case str("content") != "":
		preview = lines(str("content"), 8)
	case str("description") != "":
		preview = []string{str("description")}
	case str("prompt") != "":
		preview = lines(str("prompt"), 4)
	}
	first, _, _ := strings.Cut(what, "\n")
	return text.Sanitize(first), preview
}

func lines(s string, n int) []string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = append(ls[:n], fmt.Sprintf("… %d more lines", len(ls)-n))
	}
	for i := range ls {
		ls[i] = text.Sanitize(ls[i])
	}
	return ls
}

// suggested is Claude Code's suggested rules, for the always key.
func suggested(raw json.RawMessage) string {
	var sugs []struct {
		Type  string `json:"type"`
		Rules []struct {
			ToolName    string `json:"toolName"`
			RuleContent string `json:"ruleContent"`
		} `json:"rules"`
		Mode        string   `json:"mode"`
		Directories []string `json:"directories"`
		Destination string   `json:"destination"`
	}
	if json.Unmarshal(raw, &sugs) != nil {
		return ""
	}
	var out []string
	for _, s := range sugs {
		for _, r := range s.Rules {
			rule := r.ToolName
			if r.RuleContent != "" {
				rule += "(" + r.RuleContent + ")"
			}
			out = append(out, rule)
		}
		if s.Mode != "" {
			out = append(out, "mode "+s.Mode)
		}
		for _, d := range s.Directories {
			out = append(out, "folder "+d)
		}
	}
	return text.Sanitize(strings.Join(out, ", "))
}

// View draws the card at its size.
func (m *Model) View() string {
	p := m.Current()
	if p == nil {
		return ""
	}
	st := m.styles
	r := p.Request
	what, preview := subject(r)
	w := max(m.w, 20)
	var out []string
	head := st.NeedsInput.Render(" needs permission ") + " " + st.Bold.Render(text.Sanitize(r.ToolName))
	if n := len(m.queue); n > 1 {
		head += st.Faint.Render(fmt.Sprintf("   (1 of %d waiting)", n))
	}
	out = append(out, "", text.Fit(head, w), "")
	if what != "" {
		out = append(out, text.Fit("  "+st.Bold.Render(what), w))
	}
	for _, l := range preview {
		out = append(out, text.Fit(st.Subtle.Render("    "+l), w))
	}
	out = append(out, "")
	title := text.Sanitize(r.Title)
	if title == "" {
		title = text.ShortID(r.SessionID)
	}
	out = append(out,
		text.Fit(st.Faint.Render("  session  ")+title, w),
		text.Fit(st.Faint.Render("  folder   ")+text.Sanitize(r.Cwd), w),
		text.Fit(st.Faint.Render("  waiting  ")+waited(m.now().Sub(r.AskedAt))+
			st.Faint.Render("   (the terminal's dialog can answer too; first answer wins)"), w),
	)
	if s := suggested(r.Suggestions); s != "" {
		out = append(out, text.Fit(st.Faint.Render("  always   ")+s, w))
	}
	out = append(out, "")
	if m.typing {
		typed := string(m.msg)
		if typed == "" {
			typed = st.Faint.Render("why (Claude reads this)")
		}
		out = append(out, text.Fit("  "+st.Key.Render("deny with message:"), w),
			text.Fit("  > "+text.Sanitize(typed)+st.Cursor.Render(" "), w))
	} else if m.queue[0].sent {
		out = append(out, text.Fit(st.Faint.Render("  sending…"), w))
	} else {
		keys := []string{}
		for _, b := range m.ShortHelp() {
			if b.Help().Key == "a" && len(r.Suggestions) == 0 {
				keys = append(keys, st.Key.Render("a")+" allow (no rule suggested)")
				continue
			}
			keys = append(keys, st.Key.Render(b.Help().Key)+" "+b.Help().Desc)
		}
		out = append(out, text.Fit("  "+strings.Join(keys, st.Faint.Render(" · ")), w))
	}
	for len(out) < m.h {
		out = append(out, "")
	}
	if m.h > 0 && len(out) > m.h {
		out = out[:m.h]
	}
	return strings.Join(out, "\n")
}
