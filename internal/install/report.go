package install

import (
	"fmt"
	"io"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
)

// WriteInit prints what Init did (or would do, in a dry run) for a person.
func (r *Result) WriteInit(w io.Writer) error {
	p := &printer{w: w}
	p.f("Project: %s\n", r.Root)
	p.f("Hook command: %s\n  why: %s\n", r.Command.Line, r.Command.Why)
	if r.Command.Note != "" {
		p.f("Note: %s\n", r.Command.Note)
	}
	if r.Command.Warning != "" {
		p.f("Warning: %s\n", r.Command.Warning)
	}
	if r.DryRun {
		r.writeDryRun(p)
		return p.err
	}
	for _, f := range r.Files {
		rel := r.Rel(f.Path)
		switch {
		case f.Diff == "":
			p.f("%s already registers spcstr for all %s: nothing to change.\n", rel, count(len(f.Change.Kept), "event"))
		default:
			verb := "Updated"
			if f.Created {
				verb = "Created"
			}
			p.f("%s %s: spcstr runs on %s", verb, rel, count(len(f.Change.Added)+len(f.Change.Updated)+len(f.Change.Kept), "event"))
			if f.Backup != "" {
				p.f(" (previous file saved as %s)", r.Rel(f.Backup))
			}
			p.f(".\n")
			if n := len(f.Change.Added); n > 0 && len(f.Change.Kept)+len(f.Change.Updated) > 0 {
				p.f("  added: %s\n", strings.Join(f.Change.Added, ", "))
			}
			if len(f.Change.Updated) > 0 {
				p.f("  now running %s: %s\n", r.Command.Program, strings.Join(f.Change.Updated, ", "))
			}
			if len(f.Change.Removed) > 0 {
				p.f("  removed spcstr entries that were duplicated, behind a matcher or \"if\", or on an excluded event: %s\n",
					strings.Join(f.Change.Removed, ", "))
			}
		}
	}
	p.f("Not registered: %s (%s).\n", strings.Join(claudesettings.Excluded, ", "), claudesettings.ExcludedWhy)
	if r.ProjectSkipped != "" {
		p.f("Project folder not set up: %s.\n", r.ProjectSkipped)
	} else {
		if len(r.CreatedDirs) > 0 {
			p.f("Created %s\n", strings.Join(r.CreatedDirs, ", "))
		} else {
			p.f("%s/ already exists.\n", ".spcstr")
		}
		if r.GitignoreDiff != "" {
			p.f("Added %s to %s\n", IgnoreLine, r.Rel(r.Gitignore))
		} else {
			p.f("%s already ignores %s\n", r.Rel(r.Gitignore), IgnoreLine)
		}
	}
	r.writeNotes(p)
	if r.Changed() {
		p.f("Done. Start (or restart) Claude Code in this project; check the setup any time with: spcstr doctor\n")
	} else {
		p.f("Already set up: nothing changed.\n")
	}
	return p.err
}

// WriteUninstall prints what Uninstall did (or would do).
func (r *Result) WriteUninstall(w io.Writer) error {
	p := &printer{w: w}
	if r.DryRun {
		r.writeDryRun(p)
		return p.err
	}
	removed := false
	for _, f := range r.Files {
		if f.Diff == "" {
			continue
		}
		removed = true
		if f.Removed {
			p.f("Removed spcstr from %s: %s held nothing else, so it was deleted.\n", count(len(f.Change.Removed), "event"), r.Rel(f.Path))
			continue
		}
		p.f("Removed spcstr from %s in %s", count(len(f.Change.Removed), "event"), r.Rel(f.Path))
		if f.Backup != "" {
			p.f(" (previous file saved as %s)", r.Rel(f.Backup))
		}
		p.f(".\n")
	}
	if !removed {
		where := "the project's settings files"
		if r.Global {
			where = "the user settings file"
		}
		p.f("spcstr is not registered in %s: nothing to change.\n", where)
	}
	r.writeNotes(p)
	return p.err
}

func (r *Result) writeDryRun(p *printer) {
	if !r.Changed() {
		p.f("Dry run: nothing would change.\n")
		r.writeNotes(p)
		return
	}
	p.f("Dry run: nothing was written. The changes would be:\n")
	for _, f := range r.Files {
		p.f("%s", f.Diff)
	}
	p.f("%s", r.GitignoreDiff)
	for _, d := range r.CreatedDirs {
		p.f("create folder %s\n", d)
	}
	r.writeNotes(p)
}

func (r *Result) writeNotes(p *printer) {
	for _, n := range r.Notes {
		p.f("Note: %s\n", n)
	}
}

// printer keeps the first write error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// count writes "1 event", "2 events".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
