// Package statusline owns spcstr's status line command (Claude Code's
// `statusLine` setting; `spcstr statusline` and `spcstr-hook statusline`
// run it): it reads the JSON Claude Code hands a status line every few
// seconds, records Claude Code's live figure, token totals and rate-limit
// windows into the session's state.json (state.LiveCost), and prints one
// compact line: model, context used, the session's cost, the 5-hour and
// weekly windows when present, and what the gates hold. When the user had
// a status line of their own, it runs theirs with the same input and
// appends its part. It links no terminal package: the lean hook binary
// runs it. docs/cost.md is the contract.
package statusline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

// maxInput bounds the payload read (Claude Code's is a few KiB).
const maxInput = 1 << 20

// Options are a run's inputs.
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Now            func() time.Time
	// Run is the user's own status line command ("" for none): it runs
	// with the same input, and its first line comes first.
	Run string
}

// Payload is the part of the status line input spcstr reads (Claude Code
// 2.1.330; rate_limits only for Pro/Max subscribers).
type Payload struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Model     struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		ProjectDir string `json:"project_dir"`
		CurrentDir string `json:"current_dir"`
	} `json:"workspace"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		TotalInputTokens  int64    `json:"total_input_tokens"`
		TotalOutputTokens int64    `json:"total_output_tokens"`
		UsedPercentage    *float64 `json:"used_percentage"`
	} `json:"context_window"`
	RateLimits struct {
		FiveHour *Window `json:"five_hour"`
		SevenDay *Window `json:"seven_day"`
	} `json:"rate_limits"`
}

// Window is one rate-limit window of the payload. ResetsAt is Unix seconds
// or an RFC 3339 time.
type Window struct {
	UsedPercentage *float64        `json:"used_percentage"`
	ResetsAt       json.RawMessage `json:"resets_at"`
}

// Live is the payload as state keeps it (nil when it has no figure).
func (p *Payload) Live(now time.Time) *state.LiveCost {
	usd := p.Cost.TotalCostUSD
	if usd == nil || *usd < 0 || *usd > 1e9 || math.IsNaN(*usd) {
		return nil
	}
	c := &state.LiveCost{At: now.UTC(), USD: *usd,
		Input: max(0, p.ContextWindow.TotalInputTokens), Output: max(0, p.ContextWindow.TotalOutputTokens)}
	if u := p.ContextWindow.UsedPercentage; u != nil && *u >= 0 && *u <= 100 {
		c.ContextPercent = *u
	}
	c.FiveHour, c.SevenDay = p.RateLimits.FiveHour.window(), p.RateLimits.SevenDay.window()
	return c
}

func (w *Window) window() *state.RateWindow {
	if w == nil || w.UsedPercentage == nil || *w.UsedPercentage < 0 || *w.UsedPercentage > 1000 {
		return nil
	}
	r := &state.RateWindow{UsedPercent: *w.UsedPercentage}
	var secs int64
	var text string
	switch {
	case json.Unmarshal(w.ResetsAt, &secs) == nil && secs > 0:
		r.ResetsAt = time.Unix(secs, 0).UTC()
	case json.Unmarshal(w.ResetsAt, &text) == nil:
		if t, err := time.Parse(time.RFC3339, text); err == nil {
			r.ResetsAt = t.UTC()
		}
	}
	return r
}

// Main runs the status line command: it never fails Claude Code (exit 0,
// a line printed whatever happened; problems go to stderr).
func Main(ctx context.Context, opt Options) int {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	input, err := io.ReadAll(io.LimitReader(opt.Stdin, maxInput))
	if err != nil {
		fmt.Fprintln(opt.Stderr, "spcstr statusline:", err)
	}
	theirs := ""
	if opt.Run != "" {
		theirs = runTheirs(ctx, opt.Run, input)
	}
	var p Payload
	if err := json.Unmarshal(input, &p); err != nil {
		fmt.Fprintln(opt.Stdout, theirs)
		return 0
	}
	live := p.Live(opt.Now())
	open := -1
	if root := root(&p, opt.Getenv); root != "" && validID(p.SessionID) {
		l := state.Layout{Root: root}
		if err := Record(ctx, l, p.SessionID, live); err != nil {
			fmt.Fprintln(opt.Stderr, "spcstr statusline:", termtext.Line(err.Error()))
		}
		open = openRequirements(root, p.SessionID)
	}
	line := Line(&p, live, open)
	if theirs != "" {
		line = theirs + " │ " + line
	}
	fmt.Fprintln(opt.Stdout, line)
	return 0
}

// root is the spcstr project of the payload's session: the workspace's
// project folder (or CLAUDE_PROJECT_DIR), else the nearest folder above
// its cwd with a .spcstr folder; "" when there is none (nothing recorded).
func root(p *Payload, getenv func(string) string) string {
	dir := p.Workspace.ProjectDir
	if dir == "" {
		dir = getenv("CLAUDE_PROJECT_DIR")
	}
	cwd := p.Workspace.CurrentDir
	if cwd == "" {
		cwd = p.Cwd
	}
	r := state.FindRoot(dir, cwd)
	if !(state.Layout{Root: r}).Exists() {
		return ""
	}
	return r
}

// validID: a session id that names a folder (letters, digits, - and _).
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// lockBudget bounds how long a status line waits for the session's lock:
// a hook holding it has the floor; the next status line records.
const lockBudget = 500 * time.Millisecond

// Record keeps live as the session's live figure (state.Session.Live), in
// the session's state.json when the hooks have started one; it creates no
// session of its own. It decodes only the state's head.
func Record(ctx context.Context, l state.Layout, id string, live *state.LiveCost) error {
	if live == nil {
		return nil
	}
	path, err := l.StatePath(id)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // no session yet: its SessionStart hook starts one
	}
	ctx, cancel := context.WithTimeout(ctx, lockBudget)
	defer cancel()
	errFresh := errors.New("no session")
	_, err = l.Update(ctx, id, live.At, state.UpdateOptions{Lazy: state.AllSections}, func(s *state.Session, fresh bool) error {
		if fresh {
			return errFresh
		}
		s.Live = live
		return nil
	})
	if errors.Is(err, errFresh) {
		return nil
	}
	return err
}

// openRequirements counts the session's requirements that a tool call
// triggered and nothing satisfied yet (-1 when none are configured or
// they cannot be read).
func openRequirements(root, id string) int {
	v, err := requirements.ReadSession(root, id, "")
	if err != nil || v == nil || !v.Defined || v.Err != nil {
		return -1
	}
	n := 0
	for _, s := range v.Statuses {
		if s.Enabled && s.Triggered && !s.Satisfied {
			n++
		}
	}
	return n
}

// Line is spcstr's part of the status line: "Opus · ctx 42% · $1.23 · 5h
// 37% · 7d 12% · 2 reqs open" (each part only when known; open < 0: no
// requirements).
func Line(p *Payload, live *state.LiveCost, open int) string {
	var parts []string
	if m := p.Model.DisplayName; m != "" {
		parts = append(parts, termtext.Line(cut(m, 40)))
	} else if m := p.Model.ID; m != "" {
		parts = append(parts, termtext.Line(cut(m, 40)))
	}
	if live != nil {
		if live.ContextPercent > 0 {
			parts = append(parts, fmt.Sprintf("ctx %.0f%%", live.ContextPercent))
		}
		parts = append(parts, fmt.Sprintf("$%.2f", live.USD))
		if w := live.FiveHour; w != nil {
			parts = append(parts, fmt.Sprintf("5h %.0f%%", w.UsedPercent))
		}
		if w := live.SevenDay; w != nil {
			parts = append(parts, fmt.Sprintf("7d %.0f%%", w.UsedPercent))
		}
	}
	switch {
	case open == 1:
		parts = append(parts, "1 req open")
	case open > 1:
		parts = append(parts, fmt.Sprintf("%d reqs open", open))
	}
	return strings.Join(parts, " · ")
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// theirsBudget bounds the user's own status line command.
const theirsBudget = 2 * time.Second

// runTheirs runs the user's own status line command (from their settings
// entry: spcstr keeps it there, never in .spcstr/) with the same input,
// and returns the first line it printed.
func runTheirs(ctx context.Context, command string, input []byte) string {
	ctx, cancel := context.WithTimeout(ctx, theirsBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdin = bytes.NewReader(input)
	cmd.WaitDelay = 100 * time.Millisecond
	var out bytes.Buffer
	cmd.Stdout = &limited{w: &out, n: 64 << 10}
	_ = cmd.Run() // whatever it printed before failing is still theirs
	line, _, _ := strings.Cut(out.String(), "\n")
	return strings.TrimRight(line, "\r")
}

// limited keeps the first n bytes written and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
