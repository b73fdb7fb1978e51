package requirements

import (
	"path/filepath"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
)

// SessionView is one session's requirements as `spcstr export` and the
// dashboard show them: the read model both share.
type SessionView struct {
	// Files are the configuration files found (none: not configured).
	Files []string
	// Defined reports whether the configuration defines any requirement.
	Defined bool
	// Warnings are the configuration's problems.
	Warnings []string
	// Branch is the branch whose state file was read.
	Branch string
	// Statuses are every configured requirement (enabled or not) as the
	// session sees it; empty when no session was given.
	Statuses []Status
	// Err is the error reading the state file (a damaged file); the
	// configuration above is still valid.
	Err error
}

// ReadSession reads the requirements of the project at root as session
// sessionID sees them ("" for none). branch is the session's branch: when
// it is set and differs from the branch checked out now, its state file is
// read instead (a session keeps the branch it ran on). An error means the
// configuration could not be loaded.
func ReadSession(root, sessionID, branch string) (*SessionView, error) {
	p, err := Open(root, nil)
	if err != nil {
		return nil, err
	}
	p.OnBranch(branch)
	v := &SessionView{
		Files: p.Config.Files, Defined: len(p.Config.Requirements) > 0,
		Warnings: p.Config.Warnings, Branch: p.Loc.Branch,
	}
	if sessionID != "" {
		v.Statuses, v.Err = p.Statuses(sessionID)
	}
	return v, nil
}

// OnBranch points p at the state file of branch instead of the branch
// checked out now. It does nothing for "" and outside git (where every
// branch shares one state file).
func (p *Project) OnBranch(branch string) {
	if branch == "" || branch == p.Loc.Branch || p.Loc.Branch == NoGitBranch {
		return
	}
	p.Loc.Branch = branch
	p.Loc.Path = filepath.Join(p.Loc.Dir, gitrepo.BranchFileName(branch)+".json")
}
