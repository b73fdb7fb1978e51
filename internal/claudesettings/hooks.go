package claudesettings

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// noMatcherEvents are the events whose matcher Claude Code ignores
// (Claude Code's hooks reference): a group on them runs for every occurrence
// whatever its matcher says.
var noMatcherEvents = []string{
	hookio.UserPromptSubmit, hookio.Stop, hookio.PostToolBatch, hookio.TeammateIdle,
	hookio.TaskCreated, hookio.TaskCompleted, hookio.WorktreeCreate, hookio.WorktreeRemove,
	hookio.MessageDisplay, hookio.CwdChanged,
}

// MatchesAll reports whether a group with this matcher runs for every
// occurrence of event: no matcher, "", "*" or ".*", or an event whose
// matcher Claude Code ignores.
func MatchesAll(event string, matcher string, hasMatcher bool) bool {
	if !hasMatcher || slices.Contains(noMatcherEvents, event) {
		return true
	}
	switch matcher {
	case "", "*", ".*", "^.*$":
		return true
	}
	return false
}

// Handler is one hook handler declared in a settings file.
type Handler struct {
	Event      string
	Matcher    string
	HasMatcher bool
	Type       string
	Command    string
	Args       []string
	// If is the handler's "if" permission-rule filter ("" when absent).
	If    string
	Async bool
	// Spcstr is true for spcstr's own hook command (IsSpcstrCommand).
	Spcstr bool
}

// RunsForAll reports whether the handler runs for every occurrence of its
// event: its group's matcher lets everything through and it has no "if".
func (h Handler) RunsForAll() bool {
	return h.If == "" && MatchesAll(h.Event, h.Matcher, h.HasMatcher)
}

// Handlers lists every hook handler in the file, in file order. Entries
// that are not shaped like handlers are skipped.
func (d *Document) Handlers() []Handler {
	var out []Handler
	hooks := d.root.get("hooks")
	if hooks == nil {
		return nil
	}
	for _, ev := range hooks.members {
		for _, g := range ev.val.items {
			hs := g.get("hooks")
			if g.kind != kindObject || hs == nil || hs.kind != kindArray {
				continue
			}
			matcher, hasMatcher := g.get("matcher").str()
			for _, h := range hs.items {
				if h.kind != kindObject {
					continue
				}
				hd := Handler{Event: ev.key, Matcher: matcher, HasMatcher: hasMatcher}
				hd.Type, _ = h.get("type").str()
				hd.Command, _ = h.get("command").str()
				hd.If, _ = h.get("if").str()
				hd.Async, _ = h.get("async").boolean()
				if a := h.get("args"); a != nil {
					hd.Args = a.strings()
				}
				_, hd.Spcstr = spcstrHandler(h)
				out = append(out, hd)
			}
		}
	}
	return out
}

// spcstrHandler recognises spcstr's own handler and returns its program
// word.
func spcstrHandler(h *node) (word, bool) {
	if h == nil || h.kind != kindObject {
		return word{}, false
	}
	if t, ok := h.get("type").str(); h.get("type") != nil && (!ok || t != "command") {
		return word{}, false
	}
	command, ok := h.get("command").str()
	if !ok {
		return word{}, false
	}
	args := h.get("args")
	if args != nil && args.kind != kindArray {
		return word{}, false
	}
	return parseSpcstr(command, args.strings(), args != nil)
}

// Change says what Install or Uninstall did, by event.
type Change struct {
	// Added: events that got a new spcstr entry.
	Added []string
	// Updated: events whose spcstr entry now runs the new program.
	Updated []string
	// Kept: events already registered as wanted.
	Kept []string
	// Removed: events an spcstr entry was removed from (uninstall, a
	// duplicate, a shadowed entry replaced, or an Excluded event).
	Removed []string
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool {
	return len(c.Added) == 0 && len(c.Updated) == 0 && len(c.Removed) == 0
}

// Install registers hc.Line for every event in events: one matcher-less
// group with one command handler per event, after whatever the event
// already has. Per event, the first spcstr entry that already runs for
// every occurrence is kept (its program rewritten to hc.Program if it
// differs, keeping any VAR=value prefix and EVENT argument); any other
// spcstr entry on that event (a duplicate, or one behind a matcher or an
// "if") is removed so that nothing is recorded twice or partly. spcstr
// entries on Excluded events are removed. Everything else is left as it is.
func (d *Document) Install(hc HookCommand, events []string) Change {
	var ch Change
	hooks := d.root.get("hooks")
	if hooks == nil {
		hooks = newObject()
		d.root.set("hooks", hooks)
		d.dirty = true
	}
	for _, event := range events {
		arr := hooks.get(event)
		kept, updated := false, false
		removed := d.edit(arr, func(g, h *node, prog word) action {
			matcher, hasMatcher := g.get("matcher").str()
			if kept || h.get("if") != nil || !MatchesAll(event, matcher, hasMatcher) {
				return drop
			}
			kept = true
			timed := setTimeout(h, event)
			if prog.text == hc.Program && !timed {
				return keep
			}
			if prog.text != hc.Program {
				rewriteProgram(h, prog, hc)
			}
			updated = true
			return changed
		})
		if removed {
			ch.Removed = append(ch.Removed, event)
		}
		switch {
		case updated:
			ch.Updated = append(ch.Updated, event)
		case kept:
			ch.Kept = append(ch.Kept, event)
		default:
			if arr == nil {
				arr = newArray()
				hooks.set(event, arr)
			}
			arr.items = append(arr.items, newObject(field("hooks", newArray(newObject(
				field("type", newString("command")),
				field("command", newString(hc.Line)),
				// An explicit timeout: the gates' budget ends inside it
				// (hookio.GateBudget).
				field("timeout", newNumber(hookio.Timeout(event))),
			)))))
			arr.raw = nil
			ch.Added = append(ch.Added, event)
		}
	}
	for _, event := range Excluded {
		if d.edit(hooks.get(event), func(_, _ *node, _ word) action { return drop }) {
			ch.Removed = append(ch.Removed, event)
		}
	}
	d.dropEmptyEvents(hooks, ch.Removed)
	if !ch.Empty() {
		hooks.raw, d.root.raw, d.dirty = nil, nil, true
		expandCompact(hooks)
	}
	return ch
}

// expandCompact lays out, one element per line, the event arrays and groups
// under a re-laid-out "hooks" object that were written on one line (a
// one-line settings file), so that a kept group does not stay a single
// compact line among the new, indented ones.
func expandCompact(hooks *node) {
	var walk func(n *node)
	walk = func(n *node) {
		if n.kind == kindScalar {
			return
		}
		if n.raw != nil && bytes.ContainsRune(n.raw, '\n') {
			return
		}
		n.raw = nil
		for _, m := range n.members {
			walk(m.val)
		}
		for _, it := range n.items {
			walk(it)
		}
	}
	for _, m := range hooks.members {
		walk(m.val)
	}
}

// Uninstall removes every spcstr entry from every event, and the groups,
// event arrays and "hooks" object that became empty because of it; nothing
// else changes.
func (d *Document) Uninstall() Change {
	var ch Change
	hooks := d.root.get("hooks")
	if hooks == nil {
		return ch
	}
	for _, m := range hooks.members {
		if d.edit(m.val, func(_, _ *node, _ word) action { return drop }) {
			ch.Removed = append(ch.Removed, m.key)
		}
	}
	if ch.Empty() {
		return ch
	}
	d.dropEmptyEvents(hooks, ch.Removed)
	hooks.raw, d.root.raw, d.dirty = nil, nil, true
	if len(hooks.members) == 0 {
		d.root.remove("hooks")
	}
	return ch
}

// dropEmptyEvents removes the events in touched whose array became empty.
func (d *Document) dropEmptyEvents(hooks *node, touched []string) {
	for _, event := range touched {
		if arr := hooks.get(event); arr != nil && len(arr.items) == 0 {
			hooks.remove(event)
		}
	}
}

type action uint8

const (
	keep action = iota
	changed
	drop
)

// edit runs decide on every spcstr handler of one event's array and applies
// its answer: keep it, keep it as changed, or drop it (and its group when
// that leaves the group with no handlers). It reports whether anything was
// dropped. Containers that change lose their raw text.
func (d *Document) edit(arr *node, decide func(group, handler *node, prog word) action) (dropped bool) {
	if arr == nil {
		return false
	}
	arrChanged := false
	groups := arr.items[:0:0]
	for _, g := range arr.items {
		hs := g.get("hooks")
		if g.kind != kindObject || hs == nil || hs.kind != kindArray {
			groups = append(groups, g)
			continue
		}
		groupChanged, groupDropped := false, false
		handlers := hs.items[:0:0]
		for _, h := range hs.items {
			prog, ok := spcstrHandler(h)
			if !ok {
				handlers = append(handlers, h)
				continue
			}
			switch decide(g, h, prog) {
			case keep:
				handlers = append(handlers, h)
			case changed:
				handlers = append(handlers, h)
				groupChanged = true
			case drop:
				groupChanged, groupDropped = true, true
			}
		}
		if !groupChanged {
			groups = append(groups, g)
			continue
		}
		arrChanged = true
		dropped = dropped || groupDropped
		hs.items, hs.raw, g.raw = handlers, nil, nil
		if len(handlers) == 0 && groupDropped {
			continue
		}
		groups = append(groups, g)
	}
	if arrChanged {
		arr.items, arr.raw = groups, nil
		d.dirty = true
	}
	return dropped
}

// rewriteProgram points an spcstr handler at hc's program (spcstr hook or
// spcstr-hook), keeping the rest of its command (assignments, EVENT
// argument) as written.
func rewriteProgram(h *node, prog word, hc HookCommand) {
	if prog.start < 0 { // exec form: command is the bare program, args the rest
		h.set("command", newString(hc.Program))
		var args []*node
		if programKind(hc.Program) == "spcstr" {
			args = append(args, newString("hook"))
		}
		for _, a := range h.get("args").strings() {
			if a != "hook" {
				args = append(args, newString(a))
			}
		}
		h.set("args", newArray(args...))
		return
	}
	command, _ := h.get("command").str()
	h.set("command", newString(command[:prog.start]+hc.Line+command[prog.end:]))
}

// SpcstrCommands returns the distinct spcstr hook commands the file
// registers, in first-seen order.
func (d *Document) SpcstrCommands() []string {
	var out []string
	for _, h := range d.Handlers() {
		if h.Spcstr && !slices.Contains(out, h.Command) {
			out = append(out, h.Command)
		}
	}
	return out
}

// setTimeout gives an spcstr handler the timeout spcstr registers for
// event (hookio.Timeout) when it has none or another; it reports whether
// it changed anything.
func setTimeout(h *node, event string) bool {
	want := strconv.Itoa(hookio.Timeout(event))
	if t := h.get("timeout"); t != nil && t.kind == kindScalar && string(t.raw) == want {
		return false
	}
	h.set("timeout", newNumber(hookio.Timeout(event)))
	return true
}
