package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mailru/easyjson/jlexer"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

// maxSubagents bounds how many subagent transcripts a session tracks (a
// hostile folder cannot grow state.json without bound).
const maxSubagents = 2048

// Hint is what the hook event says about the session's transcripts.
type Hint struct {
	// Event is the hook event's name (SubagentStop, Stop, SessionEnd, ...).
	Event string
	// AgentID and AgentPath are the event's agent_id and
	// agent_transcript_path (subagent events).
	AgentID, AgentPath string
}

// ReadSession brings the session's usage up to date from its transcripts:
// the main transcript (usage, titles, Claude Code's cost-state line) and
// every subagent transcript the session has (<transcript dir>/<session
// id>/subagents/agent-<id>.jsonl), each from its own cursor, so a hook
// reads only what was appended since the previous one. A subagent
// transcript is looked at while its agent runs and until a later event
// finds it unchanged after its SubagentStop (Retire); Stop, SessionEnd
// and a SessionStart list the subagents folder for transcripts no event
// named. A path the payload
// gives that is not in the session's subagents folder is not read.
func ReadSession(s *state.Session, h Hint) error {
	var model string
	err := readMain(s.TranscriptPath, &s.Transcript, &s.Tokens, s.SetTitle, &s.ClaudeCost, &model, s)
	if s.Model == "" && model != "" && len(model) <= 128 {
		// Claude Code names no model at SessionStart in print mode: the
		// main chain's answers do.
		s.Model = termtext.Line(model)
	}
	dir := SubagentDir(s.TranscriptPath)
	if dir == "" {
		return err
	}
	Track(s, h)
	switch h.Event {
	case "Stop", "SessionEnd", "SessionStart", "PreCompact":
		listSubagents(s, dir)
	}
	grew, rerr := readSubagents(s, dir)
	if err == nil {
		err = rerr
	}
	Retire(s, h, grew)
	Stopped(s, h)
	return err
}

// readSubagents reads what was appended to each subagent transcript still
// open, and returns the ids of those that grew.
func readSubagents(s *state.Session, dir string) (map[string]bool, error) {
	var err error
	grew := map[string]bool{}
	for id, a := range s.Subagents {
		if a.Done {
			continue
		}
		path := filepath.Join(dir, "agent-"+id+".jsonl")
		a.Cursor.Path = path // not stored: the path follows from the id
		off := a.Cursor.Offset
		if rerr := readFrom(path, &a.Cursor, func(line []byte) {
			if u, key, _, ok := parseUsage(line, &s.Tokens); ok && !countedElsewhere(s, id, u.ID) {
				addUsage(u, key, &a.Cursor, &s.Tokens, &a.ByModel)
			}
		}); rerr != nil && err == nil {
			err = rerr
		}
		if a.Cursor.Offset != off {
			grew[id] = true
		}
		a.Cursor.Path = ""
		s.Subagents[id] = a
	}
	return grew, err
}

// countedElsewhere reports whether message id was counted from another
// transcript of the session (the main one, or another subagent's still
// open): a message id seen in two transcripts of one session counts once.
// It looks at each cursor's recent message ids, so the check costs the
// same however long the session is.
func countedElsewhere(s *state.Session, agent, id string) bool {
	if id == "" {
		return false
	}
	if recentHas(s.Transcript.Recent, id) {
		return true
	}
	for other, a := range s.Subagents {
		if other != agent && !a.Done && recentHas(a.Cursor.Recent, id) {
			return true
		}
	}
	return false
}

func recentHas(recent []state.MessageUsage, id string) bool {
	for i := range recent {
		if recent[i].ID == id {
			return true
		}
	}
	return false
}

// Stopped marks the agent a SubagentStop names as stopped: Claude Code
// may still write its last message after the hook, so its transcript is
// retired only at a later event that finds it unchanged (Retire).
func Stopped(s *state.Session, h Hint) {
	if h.Event != "SubagentStop" {
		return
	}
	if a, ok := s.Subagents[h.AgentID]; ok && !a.Done {
		a.Stopped = true
		s.Subagents[h.AgentID] = a
	}
}

// Track adds the subagent transcript the event names to the session's:
// its agent_transcript_path when that is a file of the session's
// subagents folder, else its agent_id.
func Track(s *state.Session, h Hint) {
	dir := SubagentDir(s.TranscriptPath)
	if dir == "" {
		return
	}
	id := agentIDFromPath(dir, h.AgentPath)
	if id == "" && validAgentID(h.AgentID) && h.AgentPath == "" {
		id = h.AgentID
	}
	if id == "" {
		return
	}
	if h.Event == "SubagentStart" {
		_ = s.LoadDoneSubagents() // a resumed agent is a finished one (track says when it cannot tell)
	}
	if a, ok := s.Subagents[id]; ok && a.Done && h.Event == "SubagentStart" {
		a.Done, a.Stopped = false, false // the agent resumed: read what it appends
		s.Subagents[id] = a
	}
	track(s, id)
}

// Retire marks transcripts as read to their end: at SessionEnd every one,
// at a later SubagentStart, SubagentStop or Stop each stopped agent's that
// this hook found unchanged (grew lists those that changed). Later hooks
// do not look at them again (a SubagentStart of the same agent, resumed,
// reopens one). Its usage moves to the agent's AgentsHistory entry when it
// has one (a list the hooks that do not need it leave encoded; these
// events decode it, recorder.sectionsFor), so that the head of state.json
// keeps only the offset of a finished agent: 150 finished agents cost a
// hook next to nothing.
func Retire(s *state.Session, h Hint, grew map[string]bool) {
	switch h.Event {
	case "SessionEnd", "Stop", "SubagentStop", "SubagentStart":
	default:
		return
	}
	for id, a := range s.Subagents {
		if a.Done || (h.Event != "SessionEnd" && (!a.Stopped || grew[id])) {
			continue
		}
		a.Done, a.Cursor.Recent = true, nil
		if e := s.FindAgent(id); e != nil && len(a.ByModel) > 0 {
			for k, u := range a.ByModel {
				addTo(&e.Usage, k, state.MessageUsage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead,
					CacheCreation: u.CacheCreation, CacheWrite1h: u.CacheWrite1h, WebSearches: u.WebSearches}, state.MessageUsage{})
			}
			a.ByModel = nil
		}
		s.Subagents[id] = a
	}
}

// SubagentDir is the folder of the subagent transcripts of the session
// whose main transcript is path ("" for none).
func SubagentDir(path string) string {
	base, ok := strings.CutSuffix(path, ".jsonl")
	if path == "" || !ok {
		return ""
	}
	return filepath.Join(base, "subagents")
}

// agentIDFromPath returns the agent id of a subagent transcript path when
// it names a file directly in dir ("" otherwise: a path elsewhere is never
// read).
func agentIDFromPath(dir, p string) string {
	if p == "" || filepath.Clean(filepath.Dir(p)) != filepath.Clean(dir) {
		return ""
	}
	id, ok := strings.CutPrefix(filepath.Base(p), "agent-")
	if !ok {
		return ""
	}
	if id, ok = strings.CutSuffix(id, ".jsonl"); !ok || !validAgentID(id) {
		return ""
	}
	return id
}

// validAgentID reports whether id can name a transcript file: letters,
// digits, "-" and "_", at most 64 bytes.
func validAgentID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// track adds a subagent transcript to the session's (a retired one stays
// retired).
func track(s *state.Session, id string) {
	if s.LoadDoneSubagents() != nil {
		return // which agents finished is unknown: tracking one could count it twice
	}
	if _, ok := s.Subagents[id]; ok || len(s.Subagents) >= maxSubagents {
		return
	}
	if s.Subagents == nil {
		s.Subagents = map[string]state.SubagentUsage{}
	}
	s.Subagents[id] = state.SubagentUsage{}
}

// listSubagents tracks every agent-<id>.jsonl of dir not tracked yet (a
// background agent no event named).
func listSubagents(s *state.Session, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		id := agentIDFromPath(dir, filepath.Join(dir, e.Name()))
		if id == "" || !e.Type().IsRegular() {
			continue
		}
		track(s, id)
	}
}

var (
	costStateMark  = []byte(`"cost-state"`)
	costNames      = []string{"type", "totalCostUSD", "modelUsage", "hasUnknownModelCost"}
	modelCostNames = []string{"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "webSearchRequests", "costUSD"}
)

// costLine reads Claude Code's cost-state line, {"type":"cost-state",
// "totalCostUSD":…, "modelUsage":{model:{…, "costUSD":…}},
// "hasUnknownModelCost":…}; the latest one wins. A line with absurd
// figures is ignored.
func costLine(raw []byte, cost **state.ClaudeCost) {
	if !bytes.Contains(raw, costStateMark) || !json.Valid(raw) {
		return
	}
	var typ string
	c := state.ClaudeCost{}
	bad := false
	count := func(l *jlexer.Lexer, p *int64) bool {
		ok := jsoncodec.Int(l, p)
		bad = bad || !ok || *p < 0 || *p > maxCount
		return true
	}
	ok := jsoncodec.Members(raw, costNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "type":
			return jsoncodec.String(l, &typ)
		case "totalCostUSD":
			return jsoncodec.Float(l, &c.USD)
		case "hasUnknownModelCost":
			return jsoncodec.Bool(l, &c.UnknownModel)
		default: // modelUsage
			return jsoncodec.Map(l, &c.ByModel, func(l *jlexer.Lexer, m *state.ClaudeModelCost) bool {
				return jsoncodec.Object(l, modelCostNames, func(name string, l *jlexer.Lexer) bool {
					switch name {
					case "inputTokens":
						return count(l, &m.Input)
					case "outputTokens":
						return count(l, &m.Output)
					case "cacheReadInputTokens":
						return count(l, &m.CacheRead)
					case "cacheCreationInputTokens":
						return count(l, &m.CacheCreation)
					case "webSearchRequests":
						return count(l, &m.WebSearches)
					default: // costUSD
						return jsoncodec.Float(l, &m.USD)
					}
				})
			})
		}
	})
	if !ok || typ != "cost-state" || bad || c.USD < 0 || c.USD > 1e9 || len(c.ByModel) > maxModels {
		return
	}
	*cost = &c
}
