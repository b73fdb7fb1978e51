//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// benchStatusLine measures the status line command (it runs every few
// seconds in every session): `spcstr-hook statusline` ÷ the floor program
// (goal ≤ 1.5, the P1 class), each recording Claude Code's live figure and
// rate limits into a session's state.json; and `spcstr cost` over 1,000
// sessions in 20 projects (goal ≤ 1 s).
func benchStatusLine(hook, spcstr, floor, tmp string, events []map[string]any) error {
	proj, err := newProject(filepath.Join(tmp, "statusline"))
	if err != nil {
		return err
	}
	l := state.Layout{Root: proj}
	if _, err := l.Update(context.Background(), "bench-statusline", time.Now(), state.UpdateOptions{}, func(*state.Session, bool) error { return nil }); err != nil {
		return err
	}
	payload := map[string]any{"session_id": "bench-statusline", "cwd": proj,
		"model": map[string]any{"id": "claude-opus-5-5", "display_name": "Opus"}, "workspace": map[string]any{"project_dir": proj, "current_dir": proj},
		"cost":           map[string]any{"total_cost_usd": 1.23},
		"context_window": map[string]any{"total_input_tokens": 196700, "total_output_tokens": 5100, "used_percentage": 42},
		"rate_limits": map[string]any{"five_hour": map[string]any{"used_percentage": 37, "resets_at": time.Now().Add(time.Hour).Unix()},
			"seven_day": map[string]any{"used_percentage": 12, "resets_at": time.Now().Add(72 * time.Hour).Unix()}}}
	env := []string{"HOME=" + tmp, "PATH=" + os.Getenv("PATH")}
	floorLog := filepath.Join(tmp, "floor-statusline.log")
	var tFloor, tLine []time.Duration
	fmt.Printf("running %d interleaved invocations each of floor and spcstr-hook statusline ...\n", *runs)
	for i := 0; i < *runs; i++ {
		d, _, err := exe(floor, []string{floorLog}, events[i%len(events)], nil)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		tFloor = append(tFloor, d)
		payload["cost"] = map[string]any{"total_cost_usd": 1.23 + float64(i)/1000}
		if d, _, err = exe(hook, []string{"statusline"}, payload, env); err != nil {
			return fmt.Errorf("statusline: %w", err)
		}
		tLine = append(tLine, d)
	}
	if s, err := l.Load("bench-statusline"); err != nil || s.Live == nil || s.Live.FiveHour == nil {
		return fmt.Errorf("the status line recorded nothing: %v", err)
	}
	fmt.Printf("%-34s median %7s   p90 %7s\n", "spcstr-hook statusline", ms(median(tLine)), ms(pct(tLine, 90)))
	verdict("statusline ÷ floor", float64(median(tLine))/float64(median(tFloor)), 1.5, "")

	// spcstr cost over 1,000 sessions in 20 projects.
	list := filepath.Join(tmp, "cost-projects.json")
	var roots []string
	for p := 0; p < 20; p++ {
		root, err := newProject(filepath.Join(tmp, "cost", fmt.Sprintf("p%02d", p)))
		if err != nil {
			return err
		}
		roots = append(roots, root)
		pl := state.Layout{Root: root}
		for s := 0; s < 50; s++ {
			at := time.Now().Add(-time.Duration(p*50+s) * time.Hour)
			if _, err := pl.Update(context.Background(), fmt.Sprintf("sess-%02d-%03d", p, s), at, state.UpdateOptions{}, func(st *state.Session, _ bool) error {
				st.LastEventAt = at.Add(time.Hour)
				st.ClaudeCost = &state.ClaudeCost{USD: 0.5, ByModel: map[string]state.ClaudeModelCost{"claude-opus-5-5": {Output: 10000, USD: 0.5}}}
				return nil
			}); err != nil {
				return err
			}
		}
	}
	if err := writeProjects(list, roots); err != nil {
		return err
	}
	costEnv := append(env, "SPCSTR_PROJECTS="+list)
	var tCost []time.Duration
	for i := 0; i < 5; i++ {
		d, _, err := exe(spcstr, []string{"cost", "--json", "--by", "model"}, nil, costEnv)
		if err != nil {
			return fmt.Errorf("spcstr cost: %w", err)
		}
		tCost = append(tCost, d)
	}
	fmt.Printf("%-34s median %7s\n", "spcstr cost, 1,000 sessions", ms(median(tCost)))
	verdict("spcstr cost, 1,000 sessions in 20 projects (s)", median(tCost).Seconds(), 1, "")
	return nil
}

// writeProjects writes a project list (internal/projects' file) naming roots.
func writeProjects(path string, roots []string) error {
	doc := `{"version":1,"projects":[`
	for i, r := range roots {
		if i > 0 {
			doc += ","
		}
		doc += fmt.Sprintf(`{"path":%q,"last_seen":%q}`, r, time.Now().UTC().Format(time.RFC3339))
	}
	return os.WriteFile(path, []byte(doc+"]}\n"), 0o644)
}
