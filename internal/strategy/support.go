package strategy

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/pathglob"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// routing is the feedback loop's routing of changed files to domains,
// which agent-first and quality-gate share so that a file belongs to the
// same domain for every gate. A feedback section that does not decode
// keeps its error for Evaluate (the strategy's fail_mode decides), so the
// strategies configuration itself stays valid.
type routing struct {
	cfg *feedback.Config
	err error
}

func newRouting(cfg *config.Config) routing {
	c, err := feedback.LoadConfig(cfg)
	return routing{cfg: c, err: err}
}

// route returns the domain of file (absolute or relative to root).
func (r routing) route(root, file string) string {
	if r.cfg == nil || file == "" {
		return ""
	}
	rel := pathglob.Rel(root, file)
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "../") {
		return "" // outside the project
	}
	return r.cfg.Route(rel)
}

// editedPath is the file a PreToolUse of Edit, Write, MultiEdit or
// NotebookEdit changes.
func editedPath(in *gate.Input) string {
	f := in.Event.Input()
	if f.FilePath != "" {
		return f.FilePath
	}
	return f.NotebookPath
}

// readRegular reads at most max bytes of a regular file (a longer file is
// cut): safefs refuses FIFOs, devices and directories without blocking.
func readRegular(path string, max int64) ([]byte, error) {
	f, _, err := safefs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// readInProject is readRegular for a file the configuration names: it
// must be inside the project root, reached through no ".." and no symlink
// out (safefs.OpenInProject).
func readInProject(root, name string, max int64) ([]byte, error) {
	f, _, err := safefs.OpenInProject(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// inside resolves rel against root and reports whether it stays inside
// root (no "..", not absolute).
func inside(root, rel string) (string, bool) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", false
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.Join(root, clean), true
}

// plain drops terminal control sequences (CSI and OSC escapes whole) and
// other control characters from text a command or a file produced, before
// it reaches the user or Claude; newlines and tabs stay.
func plain(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0x1b && i+1 < len(s) {
			switch s[i+1] {
			case '[': // CSI: parameters, then a final byte 0x40-0x7e
				j := i + 2
				for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
					j++
				}
				i = j
				continue
			case ']', 'P', '_', '^': // OSC, DCS...: up to BEL or ST
				j := i + 2
				for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
					j++
				}
				if j < len(s) && s[j] == 0x1b {
					j++
				}
				i = j
				continue
			}
			i++ // a two-byte escape
			continue
		}
		b.WriteByte(c)
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, b.String())
}
