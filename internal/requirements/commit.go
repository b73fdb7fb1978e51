package requirements

import (
	"encoding/json"
	"regexp"
	"sync"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
)

// A single_use requirement guarding a commit is spent only by a commit that
// happened: a command that merely mentions `git commit` (`echo git commit`,
// a grep) leaves it satisfied. At PreToolUse the gate records the commit
// HEAD points at in the session's entry; at PostToolUse it compares. HEAD is
// read from the git files (gitrepo.HeadCommit), never by running git.
//
// The record is a field of the session's entry that the Python framework
// does not know, so it keeps it verbatim (File keeps unknown fields too):
//
//	"spcstr_commit_head": {"tool_use_id": "toolu_…", "head": "<commit>"}
//
// Without a record for this tool call (the PreToolUse was not seen, HEAD
// could not be read, another commit's record replaced it) a completed
// commit command spends the requirement, as the framework does.
const commitHeadField = "spcstr_commit_head"

type commitHead struct {
	ToolUseID string `json:"tool_use_id"`
	Head      string `json:"head"`
}

// mentionsCommit matches a command line that names git and then commit
// anywhere (`git commit`, `echo "git commit"`, `git log | grep commit`):
// whether it committed, only HEAD can tell. A guarded command that does not
// (`npm publish`) spends its requirement once it completed.
// It is compiled on first use: most hooks never check a command, and
// compiling it in the package's init cost every hook 0.2 ms.
var mentionsCommit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\bgit\b.*\bcommit\b`)
})

// isGitCommit reports whether a command line may run a git commit.
func isGitCommit(command string) bool { return mentionsCommit().MatchString(command) }

// headCommit is the commit HEAD of the repository holding root points at;
// ok is false outside git or when it cannot be read.
func headCommit(root string) (string, bool) {
	repo, ok := gitrepo.Find(root)
	if !ok {
		return "", false
	}
	return repo.HeadCommit()
}

// recordCommitHead notes, in session key's entry of requirement name, the
// HEAD a commit command (tool call id) starts from. It reports whether it
// changed anything: a requirement without an entry for the session has
// nothing a commit could spend.
func (f *File) recordCommitHead(name, key, id, head string) bool {
	r := f.lookup(name)
	if r == nil || r.Sessions[key] == nil || id == "" {
		return false
	}
	e := r.Sessions[key]
	b, err := json.Marshal(commitHead{ToolUseID: id, Head: head})
	if err != nil {
		return false
	}
	if old, ok := e.obj.extra[commitHeadField]; ok && string(old) == string(b) {
		return false
	}
	if e.obj.extra == nil {
		e.obj.extra = map[string]json.RawMessage{}
	}
	e.obj.extra[commitHeadField] = b
	return true
}

// takeCommitHead returns and removes the HEAD recorded for tool call id in
// session key's entry of requirement name; ok is false when there is none.
// Another call's record stays for that call.
func (f *File) takeCommitHead(name, key, id string) (head string, ok bool) {
	r := f.lookup(name)
	if r == nil || r.Sessions[key] == nil || id == "" {
		return "", false
	}
	e := r.Sessions[key]
	var c commitHead
	if raw, found := e.obj.extra[commitHeadField]; !found || json.Unmarshal(raw, &c) != nil || c.ToolUseID != id {
		return "", false
	}
	delete(e.obj.extra, commitHeadField)
	return c.Head, true
}
