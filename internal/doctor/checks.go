package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/install"
	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

const fixInit = `run "spcstr init" in this project (or "spcstr init --global" to register for every project)`

// spcstrHandlers returns spcstr's handlers from every readable settings
// file, with the file they came from.
func spcstrHandlers(env *Env) (hs []claudesettings.Handler, from []SettingsFile) {
	for _, f := range env.Settings() {
		if f.Doc == nil {
			continue
		}
		for _, h := range f.Doc.Handlers() {
			if h.Spcstr {
				hs = append(hs, h)
				from = append(from, f)
			}
		}
	}
	return hs, from
}

// checkProject: spcstr records only in projects that have .spcstr/, and
// only while a settings file registers it (the hooks check says which).
func checkProject(_ context.Context, env *Env) []Finding {
	l := env.Layout()
	hs, _ := spcstrHandlers(env)
	if l.Exists() {
		if len(hs) == 0 {
			return []Finding{{Severity: OK, Message: ".spcstr/ exists, but no settings file registers spcstr: nothing is recorded until it is (see hooks)", Path: l.Dir()}}
		}
		return []Finding{{Severity: OK, Message: ".spcstr/ exists: sessions are recorded", Path: l.Dir()}}
	}
	for _, h := range hs {
		if strings.Contains(h.Command, "SPCSTR_AUTO_INIT=1") {
			return []Finding{{Severity: Info, Message: ".spcstr/ does not exist yet; the hook creates it (SPCSTR_AUTO_INIT=1)", Path: l.Dir()}}
		}
	}
	return []Finding{{Severity: Error, Message: ".spcstr/ does not exist: spcstr records nothing in this project",
		Fix: `run "spcstr init" here`, Path: l.Dir()}}
}

// checkBinary: spcstr on PATH is this binary, and every registered command
// runs a binary that exists (preferably this one).
func checkBinary(_ context.Context, env *Env) []Finding {
	var out []Finding
	exe := resolve(env.Executable)
	onPath, err := env.LookPath("spcstr")
	switch {
	case err != nil || onPath == "":
		out = append(out, Finding{Severity: Info, Message: "spcstr is not on PATH (registered hooks must use an absolute path)",
			Fix: "to type spcstr anywhere, put its folder on PATH (go install puts it in $(go env GOPATH)/bin)"})
	case exe == "" || sameFile(onPath, exe):
		out = append(out, Finding{Severity: OK, Message: "spcstr on PATH is this binary", Path: onPath})
	case !registersBare(env):
		// The hooks name their binary by its absolute path (spcstr init
		// run from a binary not on PATH does): PATH does not choose it.
		out = append(out, Finding{Severity: Info,
			Message: fmt.Sprintf("spcstr on PATH (%s) is not this binary (%s): typing spcstr runs the other one; the hooks registered here name their binary by path, so PATH does not change them", onPath, exe),
			Fix:     "remove the binary you do not want, or put the right one first on PATH", Path: onPath})
	default:
		out = append(out, Finding{Severity: Warning,
			Message: fmt.Sprintf("spcstr on PATH (%s) is not this binary (%s): hooks registered as \"spcstr hook\" run the other one", onPath, exe),
			Fix:     "remove the binary you do not want, or put the right one first on PATH; then run spcstr init again", Path: onPath})
	}

	hs, from := spcstrHandlers(env)
	seen := map[string]bool{}
	for i, h := range hs {
		if seen[h.Command] {
			continue
		}
		seen[h.Command] = true
		prog := claudesettings.ProgramOf(h.Command, h.Args)
		where := env.Rel(from[i].Path)
		switch {
		case strings.ContainsAny(prog, "$~"):
			out = append(out, Finding{Severity: Info, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q, which depends on the environment; doctor cannot check where it points", where, h.Command)})
			continue
		case !strings.ContainsAny(prog, `/\`):
			p, err := env.LookPath(prog)
			if err != nil {
				out = append(out, Finding{Severity: Error, Path: from[i].Path,
					Message: fmt.Sprintf("%s registers %q but %s is not on PATH: the hooks fail and nothing is recorded", where, h.Command, prog),
					Fix:     "put " + prog + " on PATH, or run spcstr init again (it registers the absolute path when it is not on PATH)"})
				continue
			}
			prog = p
		}
		fi, err := os.Stat(prog)
		switch {
		case err != nil:
			out = append(out, Finding{Severity: Error, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q but %s does not exist: the hooks fail and nothing is recorded", where, h.Command, prog),
				Fix:     "run spcstr init again with the spcstr you want the hooks to run"})
		case fi.IsDir() || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
			out = append(out, Finding{Severity: Error, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q but %s is not an executable file", where, h.Command, prog),
				Fix:     "run spcstr init again with the spcstr you want the hooks to run"})
		case claudesettings.IsLeanHook(prog):
			out = append(out, Finding{Severity: OK, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q, the lean recorder (its version: see recorder)", where, h.Command)})
		case exe != "" && !sameFile(prog, exe):
			out = append(out, Finding{Severity: Warning, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q, which runs %s, not this binary (%s)", where, h.Command, prog, exe),
				Fix:     "if this binary is the one you want, run spcstr init with it; otherwise ignore this"})
		default:
			out = append(out, Finding{Severity: OK, Path: from[i].Path,
				Message: fmt.Sprintf("%s registers %q, which runs this binary", where, h.Command)})
		}
	}
	return out
}

func resolve(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// checkHooks: every event registered in some settings file, for every
// occurrence (no matcher or "if" that filters it), once, and not switched
// off by disableAllHooks or managed settings.
func checkHooks(_ context.Context, env *Env) []Finding {
	var out []Finding
	for _, f := range env.Settings() {
		if f.Err != nil {
			out = append(out, Finding{Severity: Error, Path: f.Path,
				Message: fmt.Sprintf("the %s settings file cannot be read: %v", f.Scope, f.Err),
				Fix:     "fix the file by hand (Claude Code ignores a settings file it cannot parse; spcstr init will not edit it until it parses)"})
		}
	}
	// disableAllHooks: local > project > user.
	for _, f := range env.Settings() {
		if f.Doc == nil {
			continue
		}
		if v, set := f.Doc.Bool("disableAllHooks"); set {
			if v {
				out = append(out, Finding{Severity: Error, Path: f.Path,
					Message: fmt.Sprintf("%s sets \"disableAllHooks\": true: Claude Code runs no hooks, spcstr records nothing", env.Rel(f.Path)),
					Fix:     fmt.Sprintf("remove \"disableAllHooks\" from %s", env.Rel(f.Path))})
			}
			break
		}
	}
	for _, path := range env.ManagedFiles {
		doc, err := claudesettings.Load(path)
		if err != nil || !doc.Exists {
			continue
		}
		if v, _ := doc.Bool("disableAllHooks"); v {
			out = append(out, Finding{Severity: Error, Path: path,
				Message: "your organization's managed settings disable all hooks",
				Fix:     "ask your administrator; spcstr cannot record while hooks are disabled"})
		}
		if v, _ := doc.Bool("allowManagedHooksOnly"); v {
			out = append(out, Finding{Severity: Error, Path: path,
				Message: "your organization's managed settings allow only managed hooks: hooks in your settings files do not run",
				Fix:     "ask your administrator to add spcstr hook to the managed settings"})
		}
	}

	hs, from := spcstrHandlers(env)
	var missing, full []string
	for _, event := range claudesettings.Events() {
		var all []string // distinct commands that run for every occurrence
		registered := false
		for i, h := range hs {
			if h.Event != event {
				continue
			}
			registered = true
			if h.RunsForAll() {
				if !slices.Contains(all, h.Command) {
					all = append(all, h.Command)
				}
				continue
			}
			filter := fmt.Sprintf("matcher %q", h.Matcher)
			if h.If != "" {
				filter = fmt.Sprintf("\"if\": %q", h.If)
			}
			what := "the rest are not recorded"
			if hasFull(hs, event) {
				what = "those are recorded twice"
			}
			out = append(out, Finding{Severity: Warning, Path: from[i].Path,
				Message: fmt.Sprintf("%s: spcstr's %s hook runs only when %s matches (%s): %s", env.Rel(from[i].Path), event, filter, h.Command, what),
				Fix:     fmt.Sprintf("remove the %s from that entry, or %s (it moves spcstr to an entry without one)", filterWord(h), reinit(env, from[i]))})
		}
		if !registered {
			missing = append(missing, event)
			continue
		}
		if len(all) > 1 {
			out = append(out, Finding{Severity: Warning,
				Message: fmt.Sprintf("%s is registered with different commands (%s): Claude Code runs each, so every event is recorded twice", event, strings.Join(all, ", ")),
				Fix:     "keep one registration: spcstr uninstall (project) or spcstr uninstall --global (user) removes one of them"})
		}
		if len(all) > 0 {
			full = append(full, event)
		}
	}
	for _, event := range claudesettings.Excluded {
		for i, h := range hs {
			if h.Event == event {
				out = append(out, Finding{Severity: Error, Path: from[i].Path,
					Message: fmt.Sprintf("%s registers spcstr for %s: %s, so worktree creation fails", env.Rel(from[i].Path), event, claudesettings.ExcludedWhy),
					Fix:     fmt.Sprintf("remove that entry, or %s (it removes it)", reinit(env, from[i]))})
			}
		}
	}
	for i, h := range hs {
		if h.Async {
			out = append(out, Finding{Severity: Warning, Path: from[i].Path,
				Message: fmt.Sprintf("%s runs spcstr's %s hook with \"async\": true: its answers (blocks, context) are ignored", env.Rel(from[i].Path), h.Event),
				Fix:     "remove \"async\" from that entry"})
		}
	}
	switch {
	case len(missing) == len(claudesettings.Events()):
		out = append(out, Finding{Severity: Error, Message: "spcstr is not registered for any hook event in the local, project or user settings", Fix: fixInit})
	case len(missing) > 0:
		out = append(out, Finding{Severity: Error,
			Message: fmt.Sprintf("spcstr is not registered for %d event(s): %s", len(missing), strings.Join(missing, ", ")),
			Fix:     `run "spcstr init" again (or "spcstr init --global") to register every event`})
	case len(full) == len(claudesettings.Events()):
		out = append(out, Finding{Severity: OK, Message: fmt.Sprintf("spcstr is registered for all %d events", len(full))})
	}
	return out
}

func hasFull(hs []claudesettings.Handler, event string) bool {
	for _, h := range hs {
		if h.Event == event && h.RunsForAll() {
			return true
		}
	}
	return false
}

func filterWord(h claudesettings.Handler) string {
	if h.If != "" {
		return "\"if\""
	}
	return "matcher"
}

// reinit is the command that rewrites spcstr's entries in f.
func reinit(env *Env, f SettingsFile) string {
	switch f.Scope {
	case "user":
		return "run spcstr init --global"
	case "local":
		return fmt.Sprintf("run spcstr uninstall, then spcstr init (spcstr init alone edits only %s)", env.Rel(claudesettings.ProjectFile(env.Root)))
	}
	return "run spcstr init"
}

// checkConfig: .spcstr/config.yaml parses.
func checkConfig(_ context.Context, env *Env) []Finding {
	path := env.ConfigPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return []Finding{{Severity: OK, Message: "no .spcstr/config.yaml: the defaults apply"}}
	}
	cfg, err := config.Load(path)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n") // the parser adds a source excerpt
		return []Finding{{Severity: Error, Path: path,
			Message: fmt.Sprintf("%s does not parse, so spcstr ignores it and uses the defaults: %s", env.Rel(path), first),
			Fix:     "fix the YAML at the line shown, then run spcstr doctor again"}}
	}
	if _, err := pricing.Load(cfg); err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return []Finding{{Severity: Error, Path: path,
			Message: fmt.Sprintf("its pricing: section is not usable, so costs use the bundled prices: %s", first),
			Fix:     "give each model input, output, cache_read, cache_write (5-minute) and cache_write_1h in US dollars per million tokens (see docs/cost.md)"}}
	}
	out := []Finding{{Severity: OK, Message: env.Rel(path) + " parses", Path: path}}
	if v, _, _ := cfg.Lookup("dashboard"); v != nil {
		sets := false
		if m, ok := v.(yaml.MapSlice); ok {
			for _, kv := range m {
				sets = sets || kv.Key == "notify_command"
			}
		}
		if sets {
			user := config.UserPath(env.Getenv)
			out = append(out, Finding{Severity: Warning, Path: path,
				Message: fmt.Sprintf("%s sets dashboard.notify_command, which the dashboard never runs: a project's file is the repository's, and the dashboard runs only commands from your own config (%s)", env.Rel(path), user),
				Fix:     "if the command is yours, move dashboard.notify_command (and notify_via) to " + user + "; otherwise remove it from the project's config"})
		}
	}
	return out
}

// corruptMarker is what jsonfile.SetAsideName puts in a set-aside name.
const corruptMarker = ".corrupt-"

// checkCorrupt: files spcstr set aside because they did not parse: under
// .spcstr/, under the requirements state folder (<git common dir>/
// requirements/, its sessions/ metrics included) and beside the session
// registry (~/.claude/sessions.json.corrupt-*).
func checkCorrupt(_ context.Context, env *Env) []Finding {
	var out []Finding
	seen := map[string]bool{}
	visit := func(path string, d fs.DirEntry) {
		name := d.Name()
		i := strings.LastIndex(name, corruptMarker)
		if i <= 0 || d.IsDir() || seen[path] {
			return
		}
		seen[path] = true
		when := ""
		if t, err := time.Parse("20060102T150405.000000000Z", name[i+len(corruptMarker):]); err == nil {
			when = " on " + t.Local().Format("2006-01-02 15:04:05")
		}
		out = append(out, Finding{Severity: Warning, Path: path,
			Message: fmt.Sprintf("%s did not parse and was set aside%s as %s; spcstr started a fresh one, so what it held is not shown",
				env.Rel(filepath.Join(filepath.Dir(path), name[:i])), when, env.Rel(path)),
			Fix: fmt.Sprintf("look at it for anything you need, then delete it: rm %s", claudesettings.ShellQuote(env.Rel(path)))})
	}
	walk(env.Layout().Dir(), visit)
	walk(requirements.Locate(env.Root).Dir, visit)
	reg := registry.Path(env.Getenv)
	if entries, err := os.ReadDir(filepath.Dir(reg)); err == nil {
		for _, d := range entries {
			if strings.HasPrefix(d.Name(), filepath.Base(reg)+corruptMarker) {
				visit(filepath.Join(filepath.Dir(reg), d.Name()), d)
			}
		}
	}
	if len(out) == 0 {
		return []Finding{{Severity: OK, Message: "no corrupt files set aside"}}
	}
	return out
}

// walk visits every entry under dir (silently nothing when dir is missing).
func walk(dir string, fn func(path string, d fs.DirEntry)) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != dir {
			fn(path, d)
		}
		return nil
	})
}

// checkGitignore: .spcstr/ is ignored by git.
func checkGitignore(ctx context.Context, env *Env) []Finding {
	l := env.Layout()
	if !l.Exists() {
		return nil
	}
	if _, ok := gitrepo.Find(env.Root); !ok {
		return []Finding{{Severity: OK, Message: "not in a git repository: nothing to ignore"}}
	}
	notIgnored := Finding{Severity: Warning, Path: l.Dir(),
		Message: ".spcstr/ is not ignored by git: recorded sessions (prompts, tool output) could be committed",
		Fix:     `run "spcstr init" (it adds .spcstr/ to .gitignore), or add the line .spcstr/ to .gitignore yourself`}
	if env.Git != "" {
		// The project's own git configuration may name programs
		// (core.fsmonitor): doctor asks git with them switched off.
		cmd := exec.CommandContext(ctx, env.Git, "-c", "core.fsmonitor=false", "check-ignore", "-q", install.IgnoreLine)
		cmd.Dir = env.Root
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return []Finding{{Severity: OK, Message: ".spcstr/ is ignored by git"}}
		case errors.As(err, &ee) && ee.ExitCode() == 1:
			return []Finding{notIgnored}
		}
		// git failed otherwise (exit 128, ...): fall back to .gitignore.
	}
	data, _ := safefs.ReadFile(filepath.Join(env.Root, ".gitignore"), safefs.MaxConfigBytes)
	if install.Ignores(data) {
		return []Finding{{Severity: OK, Message: ".gitignore ignores .spcstr/"}}
	}
	return []Finding{notIgnored}
}

// tempFileAge is how old a temporary file must be to count as left over
// (younger ones may belong to a write in progress).
const tempFileAge = time.Minute

// checkTempFiles: temporary files of atomic writes that an interrupted
// process left behind: renameio names them ".<target name><random digits>",
// the Windows writers ".<target name>.tmp-<random digits>". A state's spare
// file (".state.json.spare", safefs.ReplaceViaSpare) is not one.
func checkTempFiles(_ context.Context, env *Env) []Finding {
	var out []Finding
	walk(env.Layout().Dir(), func(path string, d fs.DirEntry) {
		if d.IsDir() || !safefs.IsTempName(d.Name()) {
			return
		}
		info, err := d.Info()
		if err != nil || env.Now.Sub(info.ModTime()) < tempFileAge {
			return
		}
		out = append(out, Finding{Severity: Warning, Path: path,
			Message: fmt.Sprintf("%s is a temporary file left by an interrupted write", env.Rel(path)),
			Fix:     "delete it: rm " + claudesettings.ShellQuote(env.Rel(path))})
	})
	if len(out) == 0 {
		return []Finding{{Severity: OK, Message: "no leftover temporary files"}}
	}
	return out
}

// registersBare reports whether a registered spcstr hook names its binary
// without a path ("spcstr hook"), so that PATH chooses which one runs.
func registersBare(env *Env) bool {
	hs, _ := spcstrHandlers(env)
	for _, h := range hs {
		if prog := claudesettings.ProgramOf(h.Command, h.Args); !strings.ContainsAny(prog, `/\$~`) {
			return true
		}
	}
	return false
}
