// Package entry is the dashboard's full view of one log entry, opened with
// enter on an event or a decision: its whole reason or message wrapped,
// for a decision its gate and whether it was enforced, for an event what
// the hook answered (store.FindAnswer), and the entry
// itself as indented JSON, every line sanitised, scrollable. The root reads
// the entry (store.FindEntry) in a command and hands it over with SetRaw.
package entry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/tui/draw"
	"github.com/dylan-gluck/spcstr/tui/pane"
	"github.com/dylan-gluck/spcstr/tui/store"
	"github.com/dylan-gluck/spcstr/tui/text"
	"github.com/dylan-gluck/spcstr/tui/theme"
)

// KeyMap is the view's keys: scrolling, and closing it.
type KeyMap struct {
	pane.ScrollKeys
	Close key.Binding
}

// DefaultKeyMap returns the bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ScrollKeys: pane.DefaultScrollKeys("top", "bottom"),
		Close:      key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.PageDown} }

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{append(k.Bindings(), k.Close)} }

// Model is the entry view.
type Model struct {
	Keys   KeyMap
	styles *theme.Styles
	vp     viewport.Model
	ev     store.Event
	raw    []byte
	// answer is what the hook answered to the event (nil: nothing on
	// record), read from answers.json beside the entry (store.FindAnswer).
	answer *logs.Answer
	state  int // loading, found, missing
	width  int
	height int
}

const (
	loading = iota
	found
	missing
)

var (
	_ pane.Component = (*Model)(nil)
	_ pane.Scroller  = (*Model)(nil)
)

// New returns an empty view.
func New(st *theme.Styles) *Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{}
	vp.MouseWheelEnabled = false
	return &Model{Keys: DefaultKeyMap(), styles: st, vp: vp}
}

// Open shows ev while its entry is read.
func (m *Model) Open(ev store.Event) {
	m.ev, m.raw, m.answer, m.state = ev, nil, nil, loading
	m.vp.GotoTop()
	m.render()
}

// Event is the event shown.
func (m *Model) Event() store.Event { return m.ev }

// SetRaw gives the view the entry read from the log (ok false: it is not
// there any more).
func (m *Model) SetRaw(raw []byte, ok bool) {
	m.raw, m.state = raw, missing
	if ok {
		m.state = found
	}
	m.render()
}

// SetAnswer gives the view what the hook answered to the event (nil:
// nothing on record).
func (m *Model) SetAnswer(a *logs.Answer) {
	m.answer = a
	m.render()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.Keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.Keys.FullHelp() }

// SetStyles replaces the styles.
func (m *Model) SetStyles(st *theme.Styles) { m.styles = st; m.render() }

// SetSize sets the view's size; the first line is its title.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(h-1, 0))
	m.render()
}

// ScrollKeys implements pane.Scroller.
func (m *Model) ScrollKeys() pane.ScrollKeys { return m.Keys.ScrollKeys }

// Scroll implements pane.Scroller.
func (m *Model) Scroll(mv pane.Move) { pane.ScrollViewport(&m.vp, mv) }

// Update scrolls; the root closes the view on Keys.Close.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if mv, ok := m.Keys.Match(k); ok {
			m.Scroll(mv)
		}
	}
	return nil
}

// View draws the title and the scrolled content.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	title := m.ev.Event
	if m.ev.Tool != "" {
		title += " · " + m.ev.Tool
	}
	pos := ""
	if m.vp.TotalLineCount() > m.vp.Height() {
		pos = m.styles.Faint.Render(fmt.Sprintf(" %d%%", int(m.vp.ScrollPercent()*100+0.5)))
	}
	head := text.Right(m.styles.Section.Render(title), pos, m.width)
	if m.height == 1 {
		return head
	}
	return head + "\n" + m.vp.View()
}

// record is the fields of an entry shown above its JSON: a decision's
// (decisions.json) and an event's input.
type record struct {
	Source        string  `json:"source"`
	Hook          string  `json:"hook"`
	Decision      string  `json:"decision"`
	Reason        string  `json:"reason"`
	Message       string  `json:"message"`
	SystemMessage string  `json:"system_message"`
	Context       string  `json:"context"`
	DryRun        bool    `json:"dry_run"`
	Error         string  `json:"error"`
	DurationMS    float64 `json:"duration_ms"`
	Input         struct {
		Prompt  string `json:"prompt"`
		Message string `json:"message"`
		Error   string `json:"error"`
		Reason  string `json:"reason"`
		Last    string `json:"last_assistant_message"`
	} `json:"input"`
	Outcome struct {
		Error string `json:"error"`
	} `json:"outcome"`
}

func (m *Model) render() {
	st := m.styles
	w := max(m.width, 10)
	var out []string
	add := func(s string) { out = append(out, text.Fit(s, w)) }
	// para adds untrusted text, each of its lines sanitised and wrapped
	// whole under a label.
	para := func(label, s string) {
		if s == "" {
			return
		}
		add(st.Subtle.Render(label))
		for _, l := range strings.Split(s, "\n") {
			for _, wl := range text.Wrap(text.Sanitize(l), w-2) {
				add("  " + wl)
			}
		}
	}
	kv := func(k, v string) {
		if v != "" {
			for i, l := range text.Wrap(v, max(w-11, 8)) {
				if i == 0 {
					add(st.Subtle.Render(fmt.Sprintf("%-10s", k)) + " " + l)
				} else {
					add(strings.Repeat(" ", 11) + l)
				}
			}
		}
	}
	kv("time", m.ev.At.Local().Format("2006-01-02 ")+draw.Clock(m.ev.At))
	kv("session", m.ev.Session)
	var r record
	if m.state == found {
		_ = json.Unmarshal(m.raw, &r) // fields of the wrong type stay empty
	}
	c := text.Sanitize
	if m.ev.Event == "Decision" {
		kv("gate", c(r.Source))
		kv("hook", c(r.Hook))
		kv("decision", c(r.Decision))
		if d := m.ev.Gate; d != nil {
			kv("judged", d.Judged)
			// What became of it, in words true for its hook (a Stop
			// block kept Claude working).
			out := d.Outcome()
			switch {
			case d.Stopped() || d.Asked():
				kv("outcome", st.Error.Render(out))
			case d.Enforcement != gate.Enforced:
				kv("outcome", st.Warn.Render(out))
			default:
				kv("outcome", out)
			}
		}
		if r.DurationMS > 0 {
			kv("took", fmt.Sprintf("%.1f ms", r.DurationMS))
		}
		add("")
		para("reason", r.Reason)
		para("message", r.Message)
		para("shown to the user", r.SystemMessage)
		para("context given to Claude", r.Context)
		para("error", r.Error)
	} else {
		kv("tool", m.ev.Tool)
		kv("agent", m.ev.Agent)
		add("")
		para("prompt", r.Input.Prompt)
		para("message", r.Input.Message)
		para("reason", r.Input.Reason)
		para("error", cmpOr(r.Input.Error, r.Outcome.Error))
		para("last message", r.Input.Last)
		m.renderAnswer(add, kv, para)
	}
	switch m.state {
	case loading:
		para("summary", m.ev.Detail)
		add(st.Faint.Render("reading the entry…"))
	case missing:
		para("summary", m.ev.Detail)
		add(st.Warn.Render("The full entry is no longer in the log (rotated, or further back than the dashboard reads)."))
	case found:
		add(st.Section.Render("Entry"))
		var buf bytes.Buffer
		if json.Indent(&buf, m.raw, "", "  ") != nil {
			buf.Reset()
			buf.Write(m.raw)
		}
		for _, l := range strings.Split(buf.String(), "\n") {
			for _, wl := range text.Wrap(text.Sanitize(l), w) {
				out = append(out, text.Fit(st.Subtle.Render(wl), w))
			}
		}
	}
	m.vp.SetContent(strings.Join(out, "\n"))
}

// renderAnswer adds what the hook answered to the event: its JSON
// indented, how many decisions the gates left and how long they took.
func (m *Model) renderAnswer(add func(string), kv, para func(k, v string)) {
	a := m.answer
	if a == nil {
		return
	}
	add("")
	add(m.styles.Section.Render("Answer"))
	if len(a.Answer) == 0 || string(a.Answer) == "null" {
		add(m.styles.Faint.Render("nothing: the event went on"))
	} else {
		var buf bytes.Buffer
		if json.Indent(&buf, a.Answer, "", "  ") != nil {
			buf.Reset()
			buf.Write(a.Answer)
		}
		para("answered", buf.String())
	}
	if a.Decisions > 0 {
		kv("decisions", fmt.Sprint(a.Decisions))
	}
	if a.DurationMS > 0 {
		kv("gates took", fmt.Sprintf("%.1f ms", a.DurationMS))
	}
	para("error", a.Error)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
