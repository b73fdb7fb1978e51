package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
)

// installBoth is the fix that installs spcstr and spcstr-hook of one
// version side by side.
const installBoth = "install spcstr and spcstr-hook together: in your spcstr checkout run go install ./cmd/... (or unpack both from one release archive), then run spcstr init"

// checkRecorder: a registered spcstr-hook (the lean recorder) is a Go
// program of the same version as this spcstr (its build is read from the
// file, never by running it: a project's settings name it); without one, the hooks run "spcstr
// hook", which records the same, only slower, and doctor says how to
// install the lean one.
func checkRecorder(ctx context.Context, env *Env) []Finding {
	var out []Finding
	exe := resolve(env.Executable)
	beside := ""
	if exe != "" {
		p := filepath.Join(filepath.Dir(exe), claudesettings.LeanHook+filepath.Ext(exe))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			beside = p
		}
	}
	hs, from := spcstrHandlers(env)
	seen := map[string]bool{}
	lean := false
	for i, h := range hs {
		prog := claudesettings.ProgramOf(h.Command, h.Args)
		if !claudesettings.IsLeanHook(prog) {
			continue
		}
		lean = true
		if strings.ContainsAny(prog, "$~") {
			continue // checkBinary says doctor cannot follow it
		}
		if !strings.ContainsAny(prog, `/\`) {
			p, err := env.LookPath(prog)
			if err != nil {
				continue // checkBinary reports it missing
			}
			prog = p
		}
		if seen[prog] {
			continue
		}
		seen[prog] = true
		if _, err := os.Stat(prog); err != nil {
			continue // checkBinary reports it missing
		}
		where := env.Rel(from[i].Path)
		remove := "or remove " + claudesettings.ShellQuote(prog) + " and run spcstr init (the hooks then run spcstr hook)"
		v, err := env.ReadVersion(prog)
		switch {
		case err != nil:
			out = append(out, Finding{Severity: Error, Path: prog,
				Message: fmt.Sprintf("%s registers %q, but %s is not a build of spcstr-hook doctor can read (%v): the hooks may fail and record nothing", where, h.Command, prog, err),
				Fix:     installBoth + "; " + remove})
		case v != env.Version:
			out = append(out, Finding{Severity: Warning, Path: prog,
				Message: fmt.Sprintf("%s registers %q, which is %q; this spcstr is %q: the hooks and the dashboard may disagree about what is recorded", where, h.Command, v, env.Version),
				Fix:     installBoth + "; " + remove})
		default:
			out = append(out, Finding{Severity: OK, Path: prog,
				Message: fmt.Sprintf("%s registers %q, the lean recorder, the same version as this spcstr", where, h.Command)})
		}
	}
	switch {
	case lean:
	case len(hs) == 0 && beside != "":
		// Nothing registered (after spcstr uninstall, or before init):
		// no hook runs anything.
		out = append(out, Finding{Severity: Info, Path: beside,
			Message: "spcstr-hook, the lean recorder, is installed beside spcstr; no spcstr hook is registered here",
			Fix:     "run spcstr init: it registers spcstr-hook"})
	case len(hs) == 0:
		out = append(out, Finding{Severity: Info,
			Message: "spcstr-hook, the lean recorder, is not installed beside spcstr; no spcstr hook is registered here (spcstr init would register spcstr hook, which records the same, a little slower)",
			Fix:     installBoth})
	case beside != "":
		out = append(out, Finding{Severity: Info, Path: beside,
			Message: "spcstr-hook, the lean recorder, is installed beside spcstr but the hooks run spcstr hook (the same records, a little slower on every tool call)",
			Fix:     "run spcstr init: it registers spcstr-hook"})
	default:
		out = append(out, Finding{Severity: Info,
			Message: "spcstr-hook, the lean recorder, is not installed beside spcstr: the hooks run spcstr hook, which records the same, a little slower on every tool call",
			Fix:     installBoth})
	}
	return out
}
