//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/permchan"
)

// benchPermission measures the PermissionRequest hook (issue 31):
//
//	P1-perm  median spcstr-hook time on a PermissionRequest with no
//	         dashboard open ÷ the floor program's (goal ≤ 1.5: the check
//	         for a dashboard costs one lstat and one failed connect);
//	answer   the dashboard's answer (what y does: permchan's Reply) → the
//	         hook has printed it and ended, median (goal ≤ 100 ms).
func benchPermission(hook, floor, tmp string, n int) error {
	root, err := newProject(filepath.Join(tmp, "perm"))
	if err != nil {
		return err
	}
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rt)
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+root, "XDG_RUNTIME_DIR="+rt,
		"SPCSTR_REGISTRY="+filepath.Join(root, "registry.json"), "CLAUDE_PID="+strconv.Itoa(os.Getpid()))
	ev := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench-perm-%04d","transcript_path":"%s/t.jsonl","cwd":"%s","hook_event_name":"PermissionRequest",`+
			`"tool_name":"Bash","tool_input":{"command":"npm publish","description":"Publish"},`+
			`"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm publish:*"}],"behavior":"allow","destination":"localSettings"}]}`,
			i%8, root, root))
	}
	floorLog := filepath.Join(tmp, "perm-floor.log")
	off := append(append([]string(nil), env...), permchan.WaitEnv+"=0")
	var tFloor, tNone, tOff []time.Duration
	fmt.Printf("running %d interleaved PermissionRequest hooks with no dashboard, and the floor ...\n", n)
	for i := 0; i < n; i++ {
		d, _, err := exe(floor, []string{floorLog}, ev(i), nil)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		tFloor = append(tFloor, d)
		if d, _, err = exe(hook, nil, ev(i), env); err != nil {
			return err
		}
		tNone = append(tNone, d)
		if d, _, err = exe(hook, nil, ev(i), off); err != nil {
			return err
		}
		tOff = append(tOff, d)
	}

	dir := permchan.Dir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return rt
		}
		return ""
	})
	srv, err := permchan.Listen(dir, root, nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	answers := min(n, 60)
	fmt.Printf("answering %d PermissionRequest hooks from a dashboard ...\n", answers)
	var tAnswer []time.Duration
	for i := 0; i < answers; i++ {
		cmd := exec.Command(hook)
		cmd.Stdin = bytes.NewReader(ev(i))
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			return err
		}
		var p *permchan.Pending
		select {
		case p = <-srv.Requests():
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			return fmt.Errorf("no request from the hook")
		}
		start := time.Now()
		if err := p.Reply(permchan.Answer{Behavior: permchan.Allow}); err != nil {
			return fmt.Errorf("answer: %w", err)
		}
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("hook: %w", err)
		}
		tAnswer = append(tAnswer, time.Since(start))
		if !strings.Contains(out.String(), `"behavior":"allow"`) {
			return fmt.Errorf("the hook did not answer allow: %q", out.String())
		}
	}
	mFloor, mNone, mAnswer := median(tFloor), median(tNone), median(tAnswer)
	fmt.Println()
	fmt.Printf("%-34s median %7s   p90 %7s\n", "floor (decode + append + fsync)", ms(mFloor), ms(pct(tFloor, 90)))
	fmt.Printf("%-34s median %7s   p90 %7s\n", "PermissionRequest, no dashboard", ms(mNone), ms(pct(tNone, 90)))
	fmt.Printf("%-34s median %7s   p90 %7s   (÷ floor %.2f: the dashboard check's own cost is the difference)\n",
		"PermissionRequest, answering off", ms(median(tOff)), ms(pct(tOff, 90)), float64(median(tOff))/float64(mFloor))
	fmt.Printf("%-34s median %7s   p90 %7s\n", "answer → hook answered and ended", ms(mAnswer), ms(pct(tAnswer, 90)))
	fmt.Println()
	verdict("P1-perm PermissionRequest, no dashboard ÷ floor", float64(mNone)/float64(mFloor), 1.5, "")
	verdict("dashboard answer → hook answered (ms)", float64(mAnswer)/float64(time.Millisecond), 100, "")
	return nil
}
