package state

import "github.com/dylan-gluck/spcstr/internal/termtext"

// markDropped remembers, for a state just read, how many entries of each
// bounded list earlier writes cut off. A version 1 file has no totals: its
// lists are complete, so nothing was dropped.
func (s *Session) markDropped() {
	s.dropped = [4]int{
		max(0, s.PromptsTotal-len(s.Prompts)),
		max(0, s.ErrorsTotal-len(s.Errors)),
		max(0, s.NotificationsTotal-len(s.Notifications)),
		max(0, s.AgentsTotal-len(s.AgentsHistory)),
	}
}

// noteDropped sets the dropped count of a counted section just decoded
// with n entries.
func (s *Session) noteDropped(sec Section, n int) {
	totals := [4]int{s.PromptsTotal, s.ErrorsTotal, s.NotificationsTotal, s.AgentsTotal}
	for i, c := range counted {
		if c == sec {
			s.dropped[i] = max(0, totals[i]-n)
		}
	}
}

// counted pairs each counted list with its section.
var counted = [4]Section{SectionPrompts, SectionErrors, SectionNotifications, SectionAgents}

// Bound brings the state to the version 2 contract: it counts the totals,
// keeps the latest keep prompts, errors, notifications and session starts
// and the latest keep finished agents (running agents always stay), and
// cuts prompt and error texts to their previews. keep ≤ 0 means DefaultKeep. It is
// idempotent, and it is what migrates a version 1 state.
func (s *Session) Bound(keep int) {
	if keep <= 0 {
		keep = DefaultKeep
	}
	// A section left encoded was not changed: its total stands.
	totals := [4]*int{&s.PromptsTotal, &s.ErrorsTotal, &s.NotificationsTotal, &s.AgentsTotal}
	lens := [4]int{len(s.Prompts), len(s.Errors), len(s.Notifications), len(s.AgentsHistory)}
	for i, sec := range counted {
		if s.lz.encoded&sec == 0 {
			*totals[i] = s.dropped[i] + lens[i]
		}
	}

	s.Prompts = latest(s.Prompts, keep)
	s.Errors = latest(s.Errors, keep)
	s.Notifications = latest(s.Notifications, keep)
	s.AgentsHistory = latestFinished(s.AgentsHistory, keep)
	// Every resume, clear and compaction adds a start: a session that
	// runs for days must not grow state.json with them.
	s.Starts = latest(s.Starts, keep)
	for i := range s.Prompts {
		if p := &s.Prompts[i]; len(p.Prompt) > PromptPreviewBytes {
			p.Prompt, p.Truncated = termtext.Cut(p.Prompt, PromptPreviewBytes), true
		}
	}
	for i := range s.Errors {
		if e := &s.Errors[i]; len(e.Message) > ErrorPreviewBytes {
			e.Message = termtext.Cut(e.Message, ErrorPreviewBytes)
		}
	}
	old := s.dropped
	s.markDropped()
	for i, sec := range counted {
		if s.lz.encoded&sec != 0 {
			s.dropped[i] = old[i]
		}
	}
}

// latest returns the last keep entries of list, in a new backing array when
// it cuts (so that the dropped entries can be collected).
func latest[T any](list []T, keep int) []T {
	if len(list) <= keep {
		return list
	}
	return append(make([]T, 0, keep), list[len(list)-keep:]...)
}

// latestFinished drops the oldest finished agents beyond keep, keeping
// every running agent and the order of the rest.
func latestFinished(list []Agent, keep int) []Agent {
	finished := 0
	for i := range list {
		if !list[i].Running() {
			finished++
		}
	}
	cut := finished - keep
	if cut <= 0 {
		return list
	}
	out := make([]Agent, 0, len(list)-cut)
	for _, a := range list {
		if cut > 0 && !a.Running() {
			cut--
			continue
		}
		out = append(out, a)
	}
	return out
}
