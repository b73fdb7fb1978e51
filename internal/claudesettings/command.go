package claudesettings

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// HookCommand is the command spcstr registers for its hooks.
type HookCommand struct {
	// Program is the program as it should run, unquoted: "spcstr",
	// "spcstr-hook" or an absolute path to either.
	Program string
	// Line is the shell form Claude Code runs with sh -c: Program (quoted
	// when needed), followed by " hook" when Program is spcstr.
	Line string
	// OnPath is true when Program is the short form found on PATH (the
	// running executable, or the spcstr-hook beside it).
	OnPath bool
	// Why says in one sentence why this form was chosen.
	Why string
	// Warning is set when the command will probably break later (a go run
	// build that is deleted on exit).
	Warning string
	// Note is set when spcstr-hook, the faster lean recorder, is not
	// installed beside spcstr, saying how to install it.
	Note string
}

// LeanHook is the lean recorder binary's name: installed beside spcstr, it
// is what spcstr init registers (it records what "spcstr hook" records,
// without the dashboard's and OpenTelemetry's libraries).
const LeanHook = "spcstr-hook"

// ResolveCommand picks the command to register for the executable exe
// (os.Executable()). The program is spcstr-hook when that binary is
// installed beside exe, else exe itself ("... hook"); it is registered by
// its short name when lookPath finds that same file on PATH, otherwise by
// its absolute path, so that the hooks work whether or not it is on PATH.
func ResolveCommand(exe string, lookPath func(string) (string, error)) HookCommand {
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	name, bin, lean := "spcstr", exe, false
	if p := filepath.Join(filepath.Dir(exe), LeanHook+filepath.Ext(exe)); isExecutable(p) {
		name, bin, lean = LeanHook, p, true
	}
	this, thisOne := "this binary", "this one"
	if lean {
		this, thisOne = "the spcstr-hook beside this binary", "the spcstr-hook beside this binary"
	}
	var hc HookCommand
	onPath, err := lookPath(name)
	switch {
	case err != nil || onPath == "":
		hc.Why = name + " is not on PATH, so " + this + "'s absolute path is registered; " +
			"put " + name + " on PATH and re-run spcstr init to register the short form"
	case sameFile(onPath, bin):
		hc.Program, hc.OnPath = name, true
		hc.Why = name + " on PATH (" + onPath + ") is " + this
	default:
		hc.Why = name + " on PATH (" + onPath + ") is a different binary than " + thisOne + ", " +
			"so its absolute path is registered"
	}
	if lean {
		hc.Why = "spcstr-hook, the lean recorder, is installed beside spcstr: " + hc.Why
	} else {
		hc.Note = "spcstr-hook, the lean recorder, is not installed beside spcstr: the hooks run spcstr hook, which records the same, " +
			"a little slower on every tool call (in your spcstr checkout, go install ./cmd/... installs both; then run spcstr init again)"
	}
	if !hc.OnPath {
		hc.Program = bin
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			hc.Warning = "this binary looks like a temporary \"go run\" build that disappears when it exits; " +
				"install spcstr (go install ./cmd/... in a checkout, or a release archive) and run spcstr init again"
		}
	}
	hc.Line = ShellQuote(hc.Program)
	if !lean {
		hc.Line += " hook"
	}
	return hc
}

// isExecutable reports whether p is a regular file with an execute bit
// (on Windows, any regular file: the name carries .exe).
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return filepath.Ext(p) == ".exe" || fi.Mode().Perm()&0o111 != 0
}

func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ai, bi)
}

// ShellQuote quotes s for sh when it holds anything but characters that are
// safe unquoted; a single quote inside ends the quoting, is escaped with a
// backslash, and the quoting starts again (the usual sh idiom).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:@%+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// word is one word of a shell command line, unquoted, with the byte span it
// took in the line.
type word struct {
	text       string
	start, end int
}

// splitWords splits a simple sh command line into words, honouring single
// and double quotes and backslash escapes. ok is false for a line that is
// more than one simple command (pipes, lists, redirections, command
// substitution) or has unbalanced quotes.
func splitWords(line string) (words []word, ok bool) {
	var cur strings.Builder
	in := false
	start := 0
	flush := func(end int) {
		if in {
			words = append(words, word{text: cur.String(), start: start, end: end})
			cur.Reset()
			in = false
		}
	}
	begin := func(i int) {
		if !in {
			in, start = true, i
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\n':
			flush(i)
		case ';', '|', '&', '<', '>', '(', ')', '`':
			return nil, false
		case '\\':
			begin(i)
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
		case '\'':
			begin(i)
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case '"':
			begin(i)
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0 {
					i++
				} else if line[i] == '`' || line[i] == '$' && i+1 < len(line) && line[i+1] == '(' {
					return nil, false
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
		case '$':
			if i+1 < len(line) && line[i+1] == '(' {
				return nil, false
			}
			begin(i)
			cur.WriteByte(c)
		default:
			begin(i)
			cur.WriteByte(c)
		}
	}
	flush(len(line))
	return words, true
}

// isAssignment reports whether w is an environment assignment (NAME=value).
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// programKind says what a program path names by its last path element
// (either separator): spcstr ("spcstr" or spcstr.exe), the lean recorder
// ("spcstr-hook" or spcstr-hook.exe), or neither ("").
func programKind(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	switch {
	case p == "spcstr" || strings.EqualFold(p, "spcstr.exe"):
		return "spcstr"
	case p == LeanHook || strings.EqualFold(p, LeanHook+".exe"):
		return LeanHook
	}
	return ""
}

// IsLeanHook reports whether a program path names spcstr-hook, the lean
// recorder (its last path element is spcstr-hook or spcstr-hook.exe).
func IsLeanHook(program string) bool { return programKind(program) == LeanHook }

// parseSpcstr recognises spcstr's own hook command: an optional run of
// NAME=value assignments, then a program named spcstr (bare or any path)
// and the word "hook", or a program named spcstr-hook, then at most one
// EVENT argument; nothing else. For the exec form (args set) command is the
// program and args its arguments. It returns the program word, whose span
// in command covers the word "hook" after spcstr (start == end == -1 for
// the exec form).
func parseSpcstr(command string, args []string, hasArgs bool) (program word, ok bool) {
	var words []word
	if hasArgs {
		words = append(words, word{text: command, start: -1, end: -1})
		for _, a := range args {
			words = append(words, word{text: a, start: -1, end: -1})
		}
	} else {
		words, ok = splitWords(command)
		if !ok {
			return word{}, false
		}
		for len(words) > 0 && isAssignment(words[0].text) {
			words = words[1:]
		}
	}
	if len(words) == 0 {
		return word{}, false
	}
	program, rest := words[0], words[1:]
	switch programKind(program.text) {
	case "spcstr":
		if len(rest) == 0 || rest[0].text != "hook" {
			return word{}, false
		}
		if program.start >= 0 {
			program.end = rest[0].end
		}
		rest = rest[1:]
	case LeanHook:
		if len(rest) > 0 && rest[0].text == "hook" { // "spcstr hook" miswritten
			return word{}, false
		}
	default:
		return word{}, false
	}
	if len(rest) > 1 || len(rest) == 1 && hookio.SnakeName(rest[0].text) == "" {
		return word{}, false
	}
	return program, true
}

// IsSpcstrCommand reports whether a command handler (command, and args for
// the exec form) is spcstr's own hook: "spcstr hook", "<path>/spcstr hook",
// "spcstr-hook", "<path>/spcstr-hook", with or without an EVENT argument or leading VAR=value assignments.
func IsSpcstrCommand(command string, args []string) bool {
	_, ok := parseSpcstr(command, args, args != nil)
	return ok
}

// ProgramOf returns the program a hook command runs, unquoted: the first
// word after any VAR=value assignments (the command itself for the exec
// form, when args is non-nil).
func ProgramOf(command string, args []string) string {
	if args != nil {
		return command
	}
	words, ok := splitWords(command)
	if !ok {
		return ""
	}
	for _, w := range words {
		if !isAssignment(w.text) {
			return w.text
		}
	}
	return ""
}
