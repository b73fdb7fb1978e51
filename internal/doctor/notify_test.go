package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckNotifyTmuxPassthrough(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tmux       bool
		config     string
		haveNotify bool // notify-send/osascript on PATH
		option     string
		want       Severity // "" for no finding
		says       string
	}{
		{"not in tmux", false, "dashboard:\n  notify: true\n  notify_via: osc9\n", false, "off", "", ""},
		{"osc9 and passthrough off", true, "dashboard:\n  notify: true\n  notify_via: osc9\n", false, "off", Warning, "allow-passthrough is off"},
		{"osc9 and passthrough on", true, "dashboard:\n  notify: true\n  notify_via: osc9\n", false, "on", OK, "pass through tmux"},
		{"auto with notify-send", true, "dashboard:\n  notify: true\n", true, "off", "", ""},
		{"auto without a program", true, "dashboard:\n  notify: true\n", false, "off", Warning, "allow-passthrough is off"},
		{"only --notify would", true, "", false, "off", Info, "--notify"},
		{"a command", true, "dashboard:\n  notify: true\n  notify_via: command\n  notify_command: [x]\n", false, "off", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, ".spcstr"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(root, ".spcstr", "config.yaml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := &Env{Root: root,
				Getenv: func(k string) string {
					if k == "TMUX" && tc.tmux {
						return "/tmp/tmux-1000/default,1,0"
					}
					return ""
				},
				LookPath: func(string) (string, error) {
					if tc.haveNotify {
						return "/usr/bin/notify-send", nil
					}
					return "", errors.New("not found")
				},
				TmuxOption: func(_ context.Context, name string) (string, error) {
					if name != "allow-passthrough" {
						t.Errorf("asked tmux for %s", name)
					}
					return tc.option, nil
				},
			}
			got := checkNotify(context.Background(), env)
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("findings: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tc.want || !strings.Contains(got[0].Message, tc.says) {
				t.Fatalf("findings: %+v, want one %s saying %q", got, tc.want, tc.says)
			}
			if got[0].Severity.Problem() && !strings.Contains(got[0].Fix, "allow-passthrough on") {
				t.Errorf("fix: %q", got[0].Fix)
			}
		})
	}
}
