package claudesettings

import "strings"

// StatusLineKeep is the InstallStatusLine mode that leaves a status line
// the user already has alone.
const StatusLineKeep = "keep"

// InstallStatusLine registers spcstr's status line command (hc's program
// with "statusline") as the file's statusLine. A status line of the
// user's own stays theirs: spcstr's command runs it (`--run 'their
// command'`), which keeps it in this settings entry itself, or, with mode
// StatusLineKeep, the entry is left alone. It reports what it did in one
// sentence ("" when nothing changed).
func (d *Document) InstallStatusLine(hc HookCommand, mode string) string {
	ours := ShellQuote(hc.Program) + " statusline"
	sl := d.root.get("statusLine")
	theirs, _ := sl.get("command").str()
	switch {
	case sl == nil:
		d.root.set("statusLine", newObject(field("type", newString("command")), field("command", newString(ours))))
		d.root.raw, d.dirty = nil, true
		return "statusLine: spcstr's status line registered"
	case strings.Contains(theirs, " statusline") && programKind(ProgramOf(theirs, nil)) != "":
		return "" // ours already (with or without the user's own)
	case mode == StatusLineKeep:
		return "statusLine: your own status line left alone (--statusline=keep)"
	}
	cmd := ours
	if theirs != "" {
		cmd += " --run " + ShellQuote(theirs)
	}
	sl.set("command", newString(cmd))
	sl.set("type", newString("command"))
	d.root.raw, d.dirty = nil, true
	return "statusLine: spcstr's status line registered; it runs yours first and appends its part"
}

// UninstallStatusLine undoes InstallStatusLine: spcstr's status line
// command gives way to the user's own it ran (`--run 'their command'`),
// or the statusLine entry goes when it ran none. Anything else is left
// alone. It reports what it did ("" when nothing changed).
func (d *Document) UninstallStatusLine() string {
	sl := d.root.get("statusLine")
	cmd, _ := sl.get("command").str()
	if !strings.Contains(cmd, " statusline") || programKind(ProgramOf(cmd, nil)) == "" {
		return ""
	}
	words, ok := splitWords(cmd)
	theirs := ""
	for i, w := range words {
		if v, cut := strings.CutPrefix(w.text, "--run="); cut {
			theirs = v
		} else if w.text == "--run" && i+1 < len(words) {
			theirs = words[i+1].text
		}
	}
	d.root.raw, d.dirty = nil, true
	if ok && theirs != "" {
		sl.set("command", newString(theirs))
		return "statusLine: your own status line restored"
	}
	d.root.remove("statusLine")
	return "statusLine: spcstr's status line removed"
}
