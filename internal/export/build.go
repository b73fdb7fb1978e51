package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// Options tune an export.
type Options struct {
	// Sources supply the requirements and feedback-loop sections.
	Sources Sources
	// Home is the user's home folder, for the global requirements config
	// (~/.claude/requirements.yaml) when Sources.Requirements is nil.
	Home string
	// Now stamps the JSON document (nil: time.Now).
	Now func() time.Time
	// Generator names the program in the JSON document ("spcstr v1.2.3").
	Generator string
	// History supplies a session's complete prompts, errors, notifications
	// and agents, read from the logs, for a session longer than the
	// latest ones state.json keeps (nil: state.json's lists only).
	History func(ctx context.Context, l state.Layout, id string) (*state.Session, error)
	// Prices price the tokens (nil: the bundled table with the project's
	// pricing: section, read once per Build or BuildAll).
	Prices pricing.Table
}

type builder struct {
	layout state.Layout
	opt    Options
}

// Build summarises one session.
func Build(ctx context.Context, l state.Layout, id string, opt Options) (*Summary, error) {
	if opt.Prices == nil {
		opt.Prices = projectPrices(l)
	}
	b := &builder{layout: l, opt: opt}
	s, err := l.Load(id)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("session %s has no state.json: %w", id, err)
		}
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if opt.History != nil && (s.PromptsTotal > len(s.Prompts) || s.ErrorsTotal > len(s.Errors) ||
		s.NotificationsTotal > len(s.Notifications) || s.AgentsTotal > len(s.AgentsHistory)) {
		h, err := opt.History(ctx, l, id)
		if err != nil {
			return nil, fmt.Errorf("session %s: history from the logs: %w", id, err)
		}
		s.Prompts, s.Errors, s.Notifications, s.AgentsHistory = h.Prompts, h.Errors, h.Notifications, h.AgentsHistory
	}
	t, err := scanLogs(l, id)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sum := b.summary(ctx, s, t)
	if sum.Observability, err = b.observability(id, sum.Decisions.Timeline); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return sum, nil
}

// BuildAll summarises the given sessions in order. A session that cannot be
// read is left out and reported in the returned error, after the others.
func BuildAll(ctx context.Context, l state.Layout, ids []string, opt Options) ([]*Summary, error) {
	if opt.Prices == nil {
		opt.Prices = projectPrices(l)
	}
	var (
		out  []*Summary
		errs []error
	)
	for _, id := range ids {
		s, err := Build(ctx, l, id, opt)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

func (b *builder) summary(ctx context.Context, s *state.Session, t *tally) *Summary {
	sum := &Summary{
		SessionID:      s.SessionID,
		ProjectDir:     s.ProjectDir,
		Branch:         s.Branch,
		Cwd:            s.Cwd,
		Model:          s.Model,
		PermissionMode: s.PermissionMode,
		TranscriptPath: s.TranscriptPath,
		Status:         s.Status,
		Active:         s.SessionActive,
		EndReason:      s.EndReason,
		StartedAt:      s.CreatedAt.UTC(),
		Compactions:    s.Compactions,
		Title:          s.Title,
		TitleSource:    s.TitleSource,
		Starts:         []Start{},
	}
	if sum.ProjectDir == "" {
		sum.ProjectDir = b.layout.Root
	}
	if sum.Model == "" {
		sum.Model = transcriptModel(s.TranscriptPath)
	}
	if sum.Status == "" {
		sum.Status = state.StatusWaiting
	}
	if !t.first.IsZero() && t.first.Before(sum.StartedAt) {
		sum.StartedAt = t.first.UTC()
	}
	last := s.LastEventAt
	if t.last.After(last) {
		last = t.last
	}
	if !last.IsZero() {
		l := last.UTC()
		sum.LastEventAt = &l
	}
	end := last
	if s.Status == state.StatusEnded && !last.IsZero() {
		sum.EndedAt = sum.LastEventAt
	}
	if !end.IsZero() && end.After(sum.StartedAt) {
		sum.DurationMS = end.Sub(sum.StartedAt).Milliseconds()
	}
	for _, st := range s.Starts {
		sum.Starts = append(sum.Starts, Start{Source: st.Source, At: st.At.UTC()})
	}
	sc := b.opt.Prices.Session(s)
	sum.Tokens = Tokens{
		Input: sc.Tokens.Input, Output: sc.Tokens.Output,
		CacheRead: sc.Tokens.CacheRead, CacheCreation: sc.Tokens.CacheCreation,
		ContextUsed: s.Tokens.ContextUsed, ContextWindow: s.Tokens.ContextWindow,
		ContextPercent: math.Round(s.Tokens.ContextPercent()*10) / 10,
	}
	sum.Cost = cost(sc)
	if s.ForkedFrom != "" || len(s.Inherited) > 0 {
		sum.Cost.ForkedFrom = s.ForkedFrom
		sum.Cost.InheritedUSD = usd(sc.InheritedUSD)
	}

	sum.Prompts = prompts(s.Prompts)
	sum.Agents = agentTree(s.AgentsHistory, t.parents)
	agentUsage(sum.Agents, b.opt.Prices, s)
	sum.Files = Files{New: nonNil(s.Files.New), Edited: nonNil(s.Files.Edited), Read: nonNil(s.Files.Read)}
	sum.Tools = toolCounts(s.ToolsUsed)
	sum.Errors = errorList(s.Errors)
	sum.Notifications = make([]Notification, 0, len(s.Notifications))
	for _, n := range s.Notifications {
		sum.Notifications = append(sum.Notifications, Notification{Timestamp: n.Timestamp.UTC(), Type: n.Type, Title: n.Title, Message: n.Message})
	}
	sum.Todos = make([]Todo, 0, len(s.Todos))
	for _, td := range s.Todos {
		sum.Todos = append(sum.Todos, Todo{Content: td.Content, Status: td.Status})
	}
	sum.Tasks = make([]Task, 0, len(s.Tasks))
	for _, tk := range s.Tasks {
		sum.Tasks = append(sum.Tasks, Task{ID: tk.ID, Subject: tk.Subject, Status: tk.Status})
	}
	sum.Requirements = b.requirements(ctx, s)
	sum.FeedbackLoop = b.feedbackLoop(ctx, s)
	sum.Decisions = decisions(t.decisions)
	sum.Events = events(s, t)

	sum.Totals = Totals{
		Prompts:       len(sum.Prompts),
		ToolCalls:     s.ToolCalls(),
		Agents:        len(s.AgentsHistory),
		FilesNew:      len(sum.Files.New),
		FilesEdited:   len(sum.Files.Edited),
		FilesRead:     len(sum.Files.Read),
		Errors:        len(sum.Errors),
		Notifications: len(sum.Notifications),
		Decisions:     len(sum.Decisions.Timeline),
		Events:        max(sum.Events.Logged, sum.Events.Counted),
	}
	return sum
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func prompts(in []state.Prompt) []Prompt {
	out := make([]Prompt, 0, len(in))
	for _, p := range in {
		q := Prompt{Timestamp: p.Timestamp.UTC(), Kind: p.Kind, Text: p.Prompt, PromptID: p.PromptID, Truncated: p.Truncated}
		if q.Kind == "" {
			q.Kind = "user"
		}
		if q.Kind == state.PromptKindTaskNotification {
			q.Summary = tagText(p.Prompt, "summary")
		}
		out = append(out, q)
	}
	return out
}

// tagText returns the text of the first <tag>…</tag> in s.
func tagText(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	text, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.TrimSpace(text)
}

// agentTree nests agents under the subagent that launched them (parents
// maps an Agent call's tool_use_id to the launching agent's id); the rest
// are top-level, in launch order.
func agentTree(history []state.Agent, parents map[string]string) []*Agent {
	nodes := make([]*Agent, len(history))
	byID := map[string]*Agent{}
	for i, h := range history {
		a := &Agent{
			Name: h.Name, AgentID: h.AgentID, AgentType: h.AgentType, Description: h.Description,
			ToolUseID: h.ToolUseID, Background: h.Background, Status: h.Status,
			Result: h.Result, Marker: h.Marker, StartedAt: h.StartedAt.UTC(),
			DurationMS: h.DurationMS, TotalTokens: h.TotalTokens,
			Tools: toolCounts(h.ToolsUsed), Children: []*Agent{},
		}
		if h.CompletedAt != nil {
			c := h.CompletedAt.UTC()
			a.CompletedAt = &c
		}
		if a.Status == "" {
			a.Status = state.AgentCompleted
			if h.Running() {
				a.Status = state.AgentRunning
			}
		}
		nodes[i] = a
		if a.AgentID != "" {
			byID[a.AgentID] = a
		}
	}
	roots := []*Agent{}
	for _, a := range nodes {
		if p := byID[parents[a.ToolUseID]]; a.ToolUseID != "" && p != nil && p != a && !descends(p, a) {
			p.Children = append(p.Children, a)
			continue
		}
		roots = append(roots, a)
	}
	return roots
}

// descends reports whether a is below root (guards against cycles in
// damaged data).
func descends(a, root *Agent) bool {
	for _, c := range root.Children {
		if c == a || descends(a, c) {
			return true
		}
	}
	return false
}

// toolCounts sorts tools by calls, most first, then by name.
func toolCounts(m map[string]int) []ToolCount {
	out := make([]ToolCount, 0, len(m))
	for k, v := range m {
		out = append(out, ToolCount{Name: k, Calls: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Calls != out[j].Calls {
			return out[i].Calls > out[j].Calls
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func errorList(in []state.Error) []Error {
	out := make([]Error, 0, len(in))
	for _, e := range in {
		x := Error{Timestamp: e.Timestamp.UTC(), Type: e.Type, Message: e.Message}
		x.Tool, _ = e.Context["tool"].(string)
		x.File, _ = e.Context["file_path"].(string)
		x.AgentID, _ = e.Context["agent_id"].(string)
		out = append(out, x)
	}
	return out
}

func decisions(recs []Decision) Decisions {
	d := Decisions{Sources: []string{}, Timeline: recs}
	if d.Timeline == nil {
		d.Timeline = []Decision{}
	}
	seen := map[string]bool{}
	for i := range d.Timeline {
		r := &d.Timeline[i]
		r.Timestamp = r.Timestamp.UTC()
		if !seen[r.Source] {
			seen[r.Source] = true
			d.Sources = append(d.Sources, r.Source)
		}
		if r.DryRun {
			d.DryRun++
		}
		switch c := class(r.Decision, r.Reason, r.SystemMessage); {
		case r.Error != "":
			d.Errors++
		case c == ClassWarn:
			d.Warnings++
		case c == ClassAllow:
			d.Allows++
			if r.Context != "" {
				d.Contexts++
			}
		case c == ClassBlock:
			d.Blocks++
		case c == ClassDeny:
			d.Denies++
		}
	}
	sort.Strings(d.Sources)
	return d
}

func events(s *state.Session, t *tally) Events {
	e := Events{
		Logged: t.events, Answers: t.answers, TruncatedPayloads: t.truncated,
		HookErrors: t.hookErrors, ByType: []EventNum{},
	}
	for _, n := range s.EventCounts {
		e.Counted += n
	}
	for k, v := range t.byType {
		e.ByType = append(e.ByType, EventNum{Event: k, Count: v})
	}
	sort.Slice(e.ByType, func(i, j int) bool {
		if e.ByType[i].Count != e.ByType[j].Count {
			return e.ByType[i].Count > e.ByType[j].Count
		}
		return e.ByType[i].Event < e.ByType[j].Event
	})
	if !t.first.IsZero() {
		f, l := t.first.UTC(), t.last.UTC()
		e.FirstAt, e.LastAt = &f, &l
	}
	if n := len(t.hookMS); n > 0 {
		sort.Float64s(t.hookMS)
		total := 0.0
		for _, v := range t.hookMS {
			total += v
		}
		e.HookMS = HookTime{
			Median: round3(t.hookMS[(n-1)/2]),
			Max:    round3(t.hookMS[n-1]),
			Total:  round3(total),
		}
		if n >= MinCallsForP95 {
			p95 := round3(t.hookMS[(n-1)*95/100])
			e.HookMS.P95 = &p95
		}
	}
	return e
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// transcriptTail is how much of a transcript's end is read for its model.
const transcriptTail = 256 << 10

// transcriptModel returns the model of the latest assistant message in the
// last transcriptTail bytes of a transcript (state.json knows the model only
// when a hook payload carried it, which SessionStart does after compaction).
func transcriptModel(path string) string {
	if path == "" {
		return ""
	}
	f, fi, err := safefs.Open(path) // a FIFO or device is no transcript
	if err != nil {
		return ""
	}
	defer f.Close()
	off := max(0, fi.Size()-transcriptTail)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // the first line is probably cut
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"model"`)) {
			continue
		}
		var l struct {
			Type    string `json:"type"`
			Message struct {
				Model string `json:"model"`
			} `json:"message"`
		}
		if json.Unmarshal(lines[i], &l) == nil && l.Type == "assistant" && l.Message.Model != "" && l.Message.Model != "<synthetic>" {
			return l.Message.Model
		}
	}
	return ""
}

// projectPrices is the bundled price table with the project's pricing:
// section over it (a section that does not parse leaves the bundled one).
func projectPrices(l state.Layout) pricing.Table {
	cfg, _ := config.Load(l.ConfigPath())
	t, _ := pricing.Load(cfg)
	return t
}
