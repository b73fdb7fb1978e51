package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

type longRunningOptions struct {
	Common       `yaml:",inline"`
	FeatureList  string `yaml:"feature_list"`
	ProgressFile string `yaml:"progress_file"`
	InitScript   string `yaml:"init_script"`
	// EnforceCommits blocks Stop while there are uncommitted changes
	// (default true).
	EnforceCommits *bool `yaml:"enforce_commits"`
	// WarnUncommitted warns (systemMessage) about uncommitted changes at
	// Stop when EnforceCommits is off (default true).
	WarnUncommitted *bool `yaml:"warn_uncommitted"`
	// RequireProgress blocks Stop until the progress file was updated
	// since the session (re)started, once the session changed files
	// (default true).
	RequireProgress *bool `yaml:"require_progress"`
	// TokenWarnThreshold injects an urgent checkpoint warning once the
	// context holds this many tokens (default 150000; 0 keeps it).
	TokenWarnThreshold int64 `yaml:"token_warn_threshold"`
	// FeatureSchema is the JSON Schema the feature list must satisfy:
	// inline (a mapping) or the path of a schema file inside the project.
	// Default: defaultFeatureSchema.
	FeatureSchema any `yaml:"feature_schema"`
}

type longRunning struct {
	o      longRunningOptions
	schema *featureSchema
}

func buildLongRunning(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o longRunningOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if o.FeatureList == "" {
		o.FeatureList = "feature_list.json"
	}
	if o.ProgressFile == "" {
		o.ProgressFile = "claude-progress.txt"
	}
	if o.InitScript == "" {
		o.InitScript = "init.sh"
	}
	if o.TokenWarnThreshold <= 0 {
		o.TokenWarnThreshold = 150_000
	}
	schema, err := parseFeatureSchema(o.FeatureSchema, childKey(n, "feature_schema"), child(n, "feature_schema"))
	if err != nil {
		return nil, o.Common, err
	}
	return &longRunning{o: o, schema: schema}, o.Common, nil
}

func on(b *bool) bool { return b == nil || *b }

// checkFiles reports a feature_schema file that cannot be read or is not
// a schema (for spcstr doctor and spcstr strategy validate).
func (s *longRunning) checkFiles(root string) error {
	if s.schema.file == "" {
		return nil
	}
	_, err := s.schema.check(root, []byte("[]"))
	return err
}

func (s *longRunning) Hooks() []Hook {
	return []Hook{
		{Event: hookio.SessionStart},
		{Event: hookio.PreCompact},
		{Event: hookio.PostToolUse, Tool: "Write"},
		{Event: hookio.PostToolUse, Tool: "Edit"},
		{Event: hookio.PostToolUse, Tool: "MultiEdit"},
		{Event: hookio.PostToolUse, Tool: "Bash"},
		{Event: hookio.Stop, Blocks: true},
	}
}

// lrState is long-running's namespace in strategies.json.
type lrState struct {
	// StartedAt is the last SessionStart other than a compaction.
	StartedAt time.Time `json:"started_at,omitzero"`
	// Commits counts successful `git commit` calls since then.
	Commits int `json:"commits"`
	// Checkpoint is what PreCompact saw, restored after compaction.
	Checkpoint *lrCheckpoint `json:"checkpoint,omitempty"`
	// Starts counts this session's starts other than compactions
	// (startup, resume, clear).
	Starts int `json:"starts,omitempty"`
}

type lrCheckpoint struct {
	At            time.Time `json:"at"`
	Passing       int       `json:"passing"`
	Total         int       `json:"total"`
	FilesModified int       `json:"files_modified"`
	Commits       int       `json:"commits"`
}

func (s *longRunning) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	defer s.reportProgress(in)
	switch in.Name {
	case hookio.SessionStart:
		return s.sessionStart(ctx, in)
	case hookio.PreCompact:
		return nil, s.preCompact(ctx, in)
	case hookio.PostToolUse:
		vs := s.tokenWarning(in)
		if in.Event.ToolName == "Bash" {
			return vs, s.trackCommit(ctx, in)
		}
		more, err := s.trackWrite(in)
		return append(vs, more...), err
	case hookio.Stop:
		return s.stop(ctx, in)
	}
	return nil, nil
}

func (s *longRunning) path(in *gate.Input, rel string) string {
	return filepath.Join(in.Layout.Root, filepath.FromSlash(rel))
}

// sessionStart injects the initializer context (no feature list yet), the
// coding context (a fresh or resumed session), or the restored context
// after compaction. It runs `git log` here, once per session start.
func (s *longRunning) sessionStart(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	var st lrState
	if in.Event.Source == "compact" {
		if err := readNS(in, NameLongRunning, &st); err != nil {
			return nil, err
		}
		return []gate.Verdict{{Context: s.compactContext(in, st)}}, nil
	}
	if err := updateNS(ctx, in, NameLongRunning, &st, func() bool {
		st = lrState{StartedAt: in.Now, Starts: st.Starts + 1}
		return true
	}); err != nil {
		return nil, err
	}
	if _, err := os.Stat(s.path(in, s.o.FeatureList)); errors.Is(err, fs.ErrNotExist) {
		return []gate.Verdict{{Context: s.initializerContext()}}, nil
	}
	return []gate.Verdict{{Context: s.codingContext(ctx, in, st)}}, nil
}

func (s *longRunning) initializerContext() string {
	return fmt.Sprintf(`## YOUR ROLE - INITIALIZER AGENT (First Session)

You are setting up a long-running autonomous project. Create these artifacts:

### 1. %[1]s
A comprehensive list of features, each {"category", "description", "steps": [...], "passes": false}.
- Minimum 50 features (more for complex projects); all start with "passes": false
- Order by priority (foundational features first)

### 2. %[2]s
Script to set up and run the development environment.

### 3. %[3]s
Empty file for session summaries.

### 4. Git repository
Initialize git and make a first commit with all artifacts.

After setup, you may begin implementing the first feature.`, s.o.FeatureList, s.o.InitScript, s.o.ProgressFile)
}

func (s *longRunning) codingContext(ctx context.Context, in *gate.Input, st lrState) string {
	lines := []string{"## Session Context (Long-Running Agent)"}
	lines = append(lines, "- Session: "+s.sessionCount(in, st))
	passing, total := s.countFeatures(in)
	lines = append(lines, fmt.Sprintf("- Features: %d/%d passing", passing, total))
	if cur := s.currentFeature(in); cur != "" {
		lines = append(lines, "- Current feature (the first not passing): "+cur)
	}
	for _, f := range []string{s.o.FeatureList, s.o.ProgressFile} {
		// A refused path is said, never read and never silently missing.
		fh, _, err := safefs.OpenInProject(in.Layout.Root, f)
		if err == nil {
			fh.Close()
		} else if errors.Is(err, safefs.ErrOutside) {
			lines = append(lines, fmt.Sprintf("- spcstr refused %s: it leads outside the project", f))
		}
	}
	if data, err := safefs.ReadFileInProject(in.Layout.Root, s.o.FeatureList, safefs.MaxConfigBytes); err == nil {
		if bad, err := s.schema.check(in.Layout.Root, data); err != nil {
			lines = append(lines, fmt.Sprintf("- spcstr cannot check %s: %v", s.o.FeatureList, err))
		} else if bad != "" {
			lines = append(lines, fmt.Sprintf("- WARNING: %s: %s", s.o.FeatureList, bad))
		}
	}
	if inRepo(in.Layout.Root) {
		if commits, err := gitrepo.Run(ctx, in.Layout.Root, "log", "--oneline", "-3"); err == nil && len(commits) > 0 {
			lines = append(lines, "- Recent commits:")
			for _, c := range commits {
				lines = append(lines, "  - "+c)
			}
		}
	}
	if p := s.lastProgress(in); p != "" {
		lines = append(lines, "- Last session: "+p)
	}
	lines = append(lines, "", fmt.Sprintf("Remember: work on ONE feature at a time. Commit and update %s before stopping.", s.o.ProgressFile))
	return strings.Join(lines, "\n")
}

func (s *longRunning) compactContext(in *gate.Input, st lrState) string {
	passing, total := s.countFeatures(in)
	var b strings.Builder
	fmt.Fprintf(&b, "## Context Restored After Compaction\n\n- Features: %d/%d passing\n- Session %s\n- Files modified this session: %d\n- Commits this session: %d\n",
		passing, total, s.sessionCount(in, st), len(in.Session.Files.New)+len(in.Session.Files.Edited), st.Commits)
	if c := st.Checkpoint; c != nil {
		fmt.Fprintf(&b, "- Compaction checkpoint (%s): %d/%d features passing, %d files modified, %d commits\n",
			c.At.UTC().Format(time.RFC3339), c.Passing, c.Total, c.FilesModified, c.Commits)
	}
	fmt.Fprintf(&b, "\nRead `%s` and `git log` for full context. Continue with the current task or pick the next feature from %s.", s.o.ProgressFile, s.o.FeatureList)
	return b.String()
}

// tokenWarning urges a checkpoint once per compaction cycle when the
// context passes token_warn_threshold (advice, never a
// block: "Context limit: inject urgent warning").
func (s *longRunning) tokenWarning(in *gate.Input) []gate.Verdict {
	t := in.Session.Tokens
	if in.Event.AgentID != "" || t.ContextUsed < s.o.TokenWarnThreshold {
		return nil
	}
	if !in.Session.Note(fmt.Sprintf("long-running:token-warning:c%d", in.Session.Compactions)) {
		return nil
	}
	return []gate.Verdict{{Context: fmt.Sprintf("URGENT: the context holds %s tokens. Commit your work and update %s now, before the context is compacted.",
		thousands(t.ContextUsed), s.o.ProgressFile)}}
}

// preCompact saves a checkpoint. PreCompact cannot add context for Claude,
// so the checkpoint is given back at the SessionStart that follows the
// compaction.
func (s *longRunning) preCompact(ctx context.Context, in *gate.Input) error {
	passing, total := s.countFeatures(in)
	var st lrState
	return updateNS(ctx, in, NameLongRunning, &st, func() bool {
		st.Checkpoint = &lrCheckpoint{At: in.Now, Passing: passing, Total: total,
			FilesModified: len(in.Session.Files.New) + len(in.Session.Files.Edited), Commits: st.Commits}
		return true
	})
}

// gitCommitPattern is compiled on first use: a regexp compiled at package
// init would cost every hook call, most of which never need it.
var gitCommitPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[;&|(]\s*)git(\s+-\S+(\s+\S+)?)*\s+commit\b`)
})

func (s *longRunning) trackCommit(ctx context.Context, in *gate.Input) error {
	if !gitCommitPattern().MatchString(in.Event.Input().Command) || in.Event.Response().ErrorText() != "" {
		return nil
	}
	var st lrState
	return updateNS(ctx, in, NameLongRunning, &st, func() bool {
		st.Commits++
		return true
	})
}

// trackWrite warns when a change to the feature list touched more than the
// "passes" fields, or broke its shape.
func (s *longRunning) trackWrite(in *gate.Input) ([]gate.Verdict, error) {
	file := pathglob.Rel(in.Layout.Root, in.Event.Input().FilePath)
	want := filepath.ToSlash(filepath.Clean(s.o.FeatureList))
	if file != want && !(!strings.Contains(want, "/") && filepath.Base(file) == want) {
		return nil, nil
	}
	var resp struct {
		OriginalFile         *string `json:"originalFile"`
		OriginalFileContents *string `json:"originalFileContents"`
	}
	_ = json.Unmarshal(in.Event.ToolResponse, &resp)
	old := resp.OriginalFile
	if old == nil {
		old = resp.OriginalFileContents
	}
	data, err := safefs.ReadFileInProject(in.Layout.Root, file, safefs.MaxConfigBytes)
	if err != nil {
		return nil, nil // moved or deleted since: nothing to compare
	}
	var problems []string
	var vs []gate.Verdict
	bad, err := s.schema.check(in.Layout.Root, data)
	switch {
	case err != nil: // the schema file: the user's to fix; the strategy goes on
		vs = append(vs, gate.Verdict{SystemMessage: "spcstr long-running: cannot check " + s.o.FeatureList + ": " + err.Error()})
	case bad != "":
		problems = append(problems, bad)
	}
	var features []map[string]any
	if json.Unmarshal(data, &features) == nil && old != nil && strings.TrimSpace(*old) != "" && structuralChange(*old, features) {
		problems = append(problems, "its structure changed: only the \"passes\" field of a feature should change")
	}
	if len(problems) == 0 {
		return vs, nil
	}
	msg := fmt.Sprintf("WARNING: %s was modified and %s. Consider reverting the structural changes.", s.o.FeatureList, strings.Join(problems, "; "))
	return append(vs, gate.Verdict{Context: msg, SystemMessage: "spcstr long-running: " + msg}), nil
}

// structuralChange reports whether a feature list changed anything but
// the "passes" fields.
func structuralChange(old string, features []map[string]any) bool {
	var before []map[string]any
	if err := json.Unmarshal([]byte(old), &before); err != nil {
		return false // the old version was not a list either: nothing to compare
	}
	if len(before) != len(features) {
		return true
	}
	for i := range features {
		a, b := maps(before[i]), maps(features[i])
		delete(a, "passes")
		delete(b, "passes")
		if !reflect.DeepEqual(a, b) {
			return true
		}
	}
	return false
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stop blocks while there are uncommitted changes (git status, run only
// here) or the progress file was not updated since the session started,
// once the session changed files.
func (s *longRunning) stop(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	var issues, reasons []string
	var warn string
	root := in.Layout.Root
	if (on(s.o.EnforceCommits) || on(s.o.WarnUncommitted)) && inRepo(root) {
		dirty, err := uncommitted(ctx, root, nil)
		if err != nil {
			return nil, err
		}
		if len(dirty) > 0 {
			msg := "Uncommitted changes in: " + listSome(dirty, 5)
			if on(s.o.EnforceCommits) {
				issues = append(issues, msg+". Commit your progress with a descriptive message.")
				reasons = append(reasons, "uncommitted-changes")
			} else {
				warn = "spcstr long-running: " + msg
			}
		}
	}
	if on(s.o.RequireProgress) && s.changedFiles(in.Session) && !s.progressUpdated(in) {
		issues = append(issues, fmt.Sprintf("Update %s with a summary of this session (what was done, what is next).", s.o.ProgressFile))
		reasons = append(reasons, "progress-not-updated")
	}
	if len(issues) == 0 {
		return []gate.Verdict{{Decision: gate.Allow, Reason: "clean", SystemMessage: warn}}, nil
	}
	vs := []gate.Verdict{{
		Decision: gate.Block,
		Reason:   strings.Join(reasons, ","),
		Message:  "Cannot stop yet (spcstr long-running), please address:\n- " + strings.Join(issues, "\n- "),
	}}
	if warn != "" { // holds whether or not the block is enforced (dry-run)
		vs = append(vs, gate.Verdict{SystemMessage: warn})
	}
	return vs, nil
}

// changedFiles reports whether the session changed files other than the
// progress file.
func (s *longRunning) changedFiles(sess *state.Session) bool {
	progress := filepath.ToSlash(filepath.Clean(s.o.ProgressFile))
	for _, list := range [][]string{sess.Files.New, sess.Files.Edited} {
		for _, f := range list {
			if f != progress {
				return true
			}
		}
	}
	return false
}

// progressUpdated reports whether the progress file changed since the last
// session start that was not a compaction (by its modification time, so
// that an update through Bash counts too).
func (s *longRunning) progressUpdated(in *gate.Input) bool {
	fi, err := os.Stat(s.path(in, s.o.ProgressFile))
	if err != nil {
		return false
	}
	since := in.Session.CreatedAt
	for _, st := range in.Session.Starts {
		if st.Source != "compact" {
			since = st.At
		}
	}
	return !fi.ModTime().Before(since.Add(-time.Second))
}

func (s *longRunning) countFeatures(in *gate.Input) (passing, total int) {
	data, err := safefs.ReadFileInProject(in.Layout.Root, s.o.FeatureList, safefs.MaxConfigBytes)
	if err != nil {
		return 0, 0
	}
	var features []struct {
		Passes bool `json:"passes"`
	}
	if json.Unmarshal(data, &features) != nil {
		return 0, 0
	}
	for _, f := range features {
		if f.Passes {
			passing++
		}
	}
	return passing, len(features)
}

// currentFeature is the first feature of the list (ordered by priority)
// that does not pass yet: "<category>: <description>".
func (s *longRunning) currentFeature(in *gate.Input) string {
	data, err := safefs.ReadFileInProject(in.Layout.Root, s.o.FeatureList, safefs.MaxConfigBytes)
	if err != nil {
		return ""
	}
	var features []struct {
		Category    string `json:"category"`
		Description string `json:"description"`
		Passes      bool   `json:"passes"`
	}
	if json.Unmarshal(data, &features) != nil {
		return ""
	}
	for _, f := range features {
		if f.Passes || strings.TrimSpace(f.Description) == "" {
			continue
		}
		d := strings.Join(strings.Fields(f.Description), " ")
		if c := strings.TrimSpace(f.Category); c != "" {
			d = c + ": " + d
		}
		if len(d) > 160 {
			d = termtext.Cut(d, 160) + "…"
		}
		return d
	}
	return ""
}

// sessionCount says which session of the project this is: the number of
// sessions spcstr recorded in it, and this session's own starts when it
// was resumed.
func (s *longRunning) sessionCount(in *gate.Input, st lrState) string {
	n := 1
	if ids, err := in.Layout.SessionIDs(); err == nil && len(ids) > 0 {
		n = len(ids)
	}
	out := fmt.Sprintf("#%d of this project", n)
	if st.Starts > 1 {
		out += fmt.Sprintf(" (this session's start #%d)", st.Starts)
	}
	return out
}

// lastProgress returns the start of the progress file's last paragraph.
func (s *longRunning) lastProgress(in *gate.Input) string {
	data, err := safefs.ReadFileInProject(in.Layout.Root, s.o.ProgressFile, safefs.MaxConfigBytes)
	if err != nil {
		return ""
	}
	paras := strings.Split(strings.TrimSpace(string(data)), "\n\n")
	p := strings.Join(strings.Fields(paras[len(paras)-1]), " ")
	if len(p) > 160 {
		p = termtext.Cut(p, 160) + "…"
	}
	return p
}
