package claudesettings

import (
	"strings"
	"testing"
)

// spcstr's status line is added when there is none; a user's own is kept
// in the settings entry itself (spcstr's runs it with --run), or left
// alone with keep; a second run changes nothing.
func TestInstallStatusLine(t *testing.T) {
	hc := HookCommand{Program: "spcstr-hook"}
	tests := []struct {
		name, in, mode, want string
	}{
		{"none", `{}`, "on", `"command": "spcstr-hook statusline"`},
		{"theirs", `{"statusLine": {"type": "command", "command": "~/bin/my line", "padding": 1}}`, "on",
			`"command": "spcstr-hook statusline --run '~/bin/my line'"`},
		{"keep", `{"statusLine": {"type": "command", "command": "~/bin/my line"}}`, StatusLineKeep, `"command": "~/bin/my line"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("settings.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			d.InstallStatusLine(hc, tt.mode)
			got := string(d.Bytes())
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %s, want it to contain %s", got, tt.want)
			}
			if tt.name == "theirs" && !strings.Contains(got, `"padding": 1`) {
				t.Errorf("the entry's other keys were lost: %s", got)
			}
			again, err := Parse("settings.json", d.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if note := again.InstallStatusLine(hc, tt.mode); tt.mode != StatusLineKeep && note != "" {
				t.Errorf("a second run changed something: %s", note)
			}
			// Uninstall gives the user's own back, or removes spcstr's.
			again.UninstallStatusLine()
			after := string(again.Bytes())
			switch tt.name {
			case "none":
				if strings.Contains(after, "statusLine") {
					t.Errorf("uninstall left spcstr's status line: %s", after)
				}
			default:
				if !strings.Contains(after, `"command": "~/bin/my line"`) {
					t.Errorf("uninstall did not restore theirs: %s", after)
				}
			}
		})
	}
}
