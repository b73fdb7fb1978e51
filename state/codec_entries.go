package state

import (
	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

// The codecs of the types inside state.json (see codec.go): one writer and
// one reader each, members in the struct's order with its omitempty and
// omitzero rules.

var agentKeys = []string{"name", "agent_id", "agent_type", "description", "tool_use_id", "background",
	"started_at", "completed_at", "status", "result", "marker", "tools_used", "duration_ms", "total_tokens", "usage"}

func writeAgent(w *jwriter.Writer, a Agent) {
	o := jsoncodec.Open(w)
	o.Key("name").String(a.Name)
	optString(o, "agent_id", a.AgentID)
	optString(o, "agent_type", a.AgentType)
	optString(o, "description", a.Description)
	optString(o, "tool_use_id", a.ToolUseID)
	o.Key("background").Bool(a.Background)
	jsoncodec.WriteTime(o.Key("started_at"), a.StartedAt)
	if a.CompletedAt != nil {
		jsoncodec.WriteTime(o.Key("completed_at"), *a.CompletedAt)
	}
	optString(o, "status", a.Status)
	optString(o, "result", a.Result)
	optString(o, "marker", a.Marker)
	if len(a.ToolsUsed) > 0 {
		jsoncodec.WriteMap(o.Key("tools_used"), a.ToolsUsed, jsoncodec.WriteInt[int])
	}
	if a.DurationMS != 0 {
		jsoncodec.WriteFloat(o.Key("duration_ms"), a.DurationMS)
	}
	if a.TotalTokens != 0 {
		o.Key("total_tokens").Int64(a.TotalTokens)
	}
	if len(a.Usage) > 0 {
		jsoncodec.WriteMap(o.Key("usage"), a.Usage, writeModelUsage)
	}
	o.Close()
}

func readAgent(l *jlexer.Lexer, a *Agent) bool {
	return jsoncodec.Object(l, agentKeys, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "name":
			return jsoncodec.String(l, &a.Name)
		case "agent_id":
			return jsoncodec.String(l, &a.AgentID)
		case "agent_type":
			return jsoncodec.String(l, &a.AgentType)
		case "description":
			return jsoncodec.String(l, &a.Description)
		case "tool_use_id":
			return jsoncodec.String(l, &a.ToolUseID)
		case "background":
			return jsoncodec.Bool(l, &a.Background)
		case "started_at":
			return jsoncodec.Time(l, &a.StartedAt)
		case "completed_at":
			return jsoncodec.Ptr(l, &a.CompletedAt, jsoncodec.Time)
		case "status":
			return jsoncodec.String(l, &a.Status)
		case "result":
			return jsoncodec.String(l, &a.Result)
		case "marker":
			return jsoncodec.String(l, &a.Marker)
		case "tools_used":
			return jsoncodec.Map(l, &a.ToolsUsed, jsoncodec.Int[int])
		case "duration_ms":
			return jsoncodec.Float(l, &a.DurationMS)
		case "usage":
			return jsoncodec.Map(l, &a.Usage, readModelUsage)
		default: // total_tokens
			return jsoncodec.Int(l, &a.TotalTokens)
		}
	})
}

var errorNames = []string{"timestamp", "type", "message", "context"}

func writeError(w *jwriter.Writer, e Error) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteTime(o.Key("timestamp"), e.Timestamp)
	o.Key("type").String(e.Type)
	o.Key("message").String(e.Message)
	if len(e.Context) > 0 {
		jsoncodec.WriteMap(o.Key("context"), e.Context, jsoncodec.WriteAny)
	}
	o.Close()
}

func readError(l *jlexer.Lexer, e *Error) bool {
	return jsoncodec.Object(l, errorNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "timestamp":
			return jsoncodec.Time(l, &e.Timestamp)
		case "type":
			return jsoncodec.String(l, &e.Type)
		case "message":
			return jsoncodec.String(l, &e.Message)
		default: // context
			return jsoncodec.Map(l, &e.Context, jsoncodec.Any)
		}
	})
}

var promptNames = []string{"timestamp", "prompt", "kind", "prompt_id", "truncated"}

func writePrompt(w *jwriter.Writer, p Prompt) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteTime(o.Key("timestamp"), p.Timestamp)
	o.Key("prompt").String(p.Prompt)
	optString(o, "kind", p.Kind)
	optString(o, "prompt_id", p.PromptID)
	if p.Truncated {
		o.Key("truncated").Bool(true)
	}
	o.Close()
}

func readPrompt(l *jlexer.Lexer, p *Prompt) bool {
	return jsoncodec.Object(l, promptNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "timestamp":
			return jsoncodec.Time(l, &p.Timestamp)
		case "prompt":
			return jsoncodec.String(l, &p.Prompt)
		case "kind":
			return jsoncodec.String(l, &p.Kind)
		case "prompt_id":
			return jsoncodec.String(l, &p.PromptID)
		default: // truncated
			return jsoncodec.Bool(l, &p.Truncated)
		}
	})
}

var notificationNames = []string{"timestamp", "message", "type", "title"}

func writeNotification(w *jwriter.Writer, n Notification) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteTime(o.Key("timestamp"), n.Timestamp)
	o.Key("message").String(n.Message)
	optString(o, "type", n.Type)
	optString(o, "title", n.Title)
	o.Close()
}

func readNotification(l *jlexer.Lexer, n *Notification) bool {
	return jsoncodec.Object(l, notificationNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "timestamp":
			return jsoncodec.Time(l, &n.Timestamp)
		case "message":
			return jsoncodec.String(l, &n.Message)
		case "type":
			return jsoncodec.String(l, &n.Type)
		default: // title
			return jsoncodec.String(l, &n.Title)
		}
	})
}

var todoNames = []string{"content", "status", "activeForm"}

func writeTodo(w *jwriter.Writer, t Todo) {
	o := jsoncodec.Open(w)
	o.Key("content").String(t.Content)
	o.Key("status").String(t.Status)
	optString(o, "activeForm", t.ActiveForm)
	o.Close()
}

func readTodo(l *jlexer.Lexer, t *Todo) bool {
	return jsoncodec.Object(l, todoNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "content":
			return jsoncodec.String(l, &t.Content)
		case "status":
			return jsoncodec.String(l, &t.Status)
		default: // activeForm
			return jsoncodec.String(l, &t.ActiveForm)
		}
	})
}

var taskNames = []string{"id", "subject", "description", "status", "updated_at"}

func writeTask(w *jwriter.Writer, t Task) {
	o := jsoncodec.Open(w)
	o.Key("id").String(t.ID)
	optString(o, "subject", t.Subject)
	optString(o, "description", t.Description)
	optString(o, "status", t.Status)
	jsoncodec.WriteTime(o.Key("updated_at"), t.UpdatedAt)
	o.Close()
}

func readTask(l *jlexer.Lexer, t *Task) bool {
	return jsoncodec.Object(l, taskNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "id":
			return jsoncodec.String(l, &t.ID)
		case "subject":
			return jsoncodec.String(l, &t.Subject)
		case "description":
			return jsoncodec.String(l, &t.Description)
		case "status":
			return jsoncodec.String(l, &t.Status)
		default: // updated_at
			return jsoncodec.Time(l, &t.UpdatedAt)
		}
	})
}

var startNames = []string{"source", "at"}

func writeStart(w *jwriter.Writer, s Start) {
	o := jsoncodec.Open(w)
	o.Key("source").String(s.Source)
	jsoncodec.WriteTime(o.Key("at"), s.At)
	o.Close()
}

func readStart(l *jlexer.Lexer, s *Start) bool {
	return jsoncodec.Object(l, startNames, func(name string, l *jlexer.Lexer) bool {
		if name == "source" {
			return jsoncodec.String(l, &s.Source)
		}
		return jsoncodec.Time(l, &s.At)
	})
}

var minuteNames = []string{"minute", "count"}

func writeMinuteCount(w *jwriter.Writer, m MinuteCount) {
	o := jsoncodec.Open(w)
	o.Key("minute").Int64(m.Minute)
	o.Key("count").Int(m.Count)
	o.Close()
}

func readMinuteCount(l *jlexer.Lexer, m *MinuteCount) bool {
	return jsoncodec.Object(l, minuteNames, func(name string, l *jlexer.Lexer) bool {
		if name == "minute" {
			return jsoncodec.Int(l, &m.Minute)
		}
		return jsoncodec.Int(l, &m.Count)
	})
}

var gateStateNames = []string{"stop_blocks", "tools_at_block"}

func writeGateState(w *jwriter.Writer, g GateState) {
	o := jsoncodec.Open(w)
	if g.StopBlocks != 0 {
		o.Key("stop_blocks").Int(g.StopBlocks)
	}
	if g.ToolsAtBlock != 0 {
		o.Key("tools_at_block").Int(g.ToolsAtBlock)
	}
	o.Close()
}

func readGateState(l *jlexer.Lexer, g *GateState) bool {
	return jsoncodec.Object(l, gateStateNames, func(name string, l *jlexer.Lexer) bool {
		if name == "stop_blocks" {
			return jsoncodec.Int(l, &g.StopBlocks)
		}
		return jsoncodec.Int(l, &g.ToolsAtBlock)
	})
}

// Member names of Tokens, ModelUsage and MessageUsage.
var (
	tokensNames     = []string{"input", "output", "cache_read", "cache_creation", "context_used", "context_window", "by_model", "skipped"}
	modelUsageNames = []string{"input", "output", "cache_read", "cache_creation", "cache_write_1h", "web_searches"}
	usageNames      = []string{"id", "input", "output", "cache_read", "cache_creation", "cache_write_1h", "web_searches", "key"}
)

// writeCounts writes the four token counts.
func writeCounts(o *jsoncodec.ObjectWriter, in, out, read, creation int64) {
	o.Key("input").Int64(in)
	o.Key("output").Int64(out)
	o.Key("cache_read").Int64(read)
	o.Key("cache_creation").Int64(creation)
}

// writeExtra writes the counts omitempty leaves out when zero.
func writeExtra(o *jsoncodec.ObjectWriter, w1h, searches int64) {
	if w1h != 0 {
		o.Key("cache_write_1h").Int64(w1h)
	}
	if searches != 0 {
		o.Key("web_searches").Int64(searches)
	}
}

// readCount reads one of the token counts (false: not one of them).
func readCount(name string, l *jlexer.Lexer, in, out, read, creation *int64) (ok, known bool) {
	switch name {
	case "input":
		return jsoncodec.Int(l, in), true
	case "output":
		return jsoncodec.Int(l, out), true
	case "cache_read":
		return jsoncodec.Int(l, read), true
	case "cache_creation":
		return jsoncodec.Int(l, creation), true
	}
	return false, false
}

func writeModelUsage(w *jwriter.Writer, m ModelUsage) {
	o := jsoncodec.Open(w)
	writeCounts(o, m.Input, m.Output, m.CacheRead, m.CacheCreation)
	writeExtra(o, m.CacheWrite1h, m.WebSearches)
	o.Close()
}

func readModelUsage(l *jlexer.Lexer, m *ModelUsage) bool {
	return jsoncodec.Object(l, modelUsageNames, func(name string, l *jlexer.Lexer) bool {
		if ok, known := readCount(name, l, &m.Input, &m.Output, &m.CacheRead, &m.CacheCreation); known {
			return ok
		}
		if name == "cache_write_1h" {
			return jsoncodec.Int(l, &m.CacheWrite1h)
		}
		return jsoncodec.Int(l, &m.WebSearches)
	})
}

func writeTokens(w *jwriter.Writer, t Tokens) {
	o := jsoncodec.Open(w)
	writeCounts(o, t.Input, t.Output, t.CacheRead, t.CacheCreation)
	o.Key("context_used").Int64(t.ContextUsed)
	o.Key("context_window").Int64(t.ContextWindow)
	if len(t.ByModel) > 0 {
		jsoncodec.WriteMap(o.Key("by_model"), t.ByModel, writeModelUsage)
	}
	if t.Skipped != 0 {
		o.Key("skipped").Int64(t.Skipped)
	}
	o.Close()
}

func readTokens(l *jlexer.Lexer, t *Tokens) bool {
	return jsoncodec.Object(l, tokensNames, func(name string, l *jlexer.Lexer) bool {
		if ok, known := readCount(name, l, &t.Input, &t.Output, &t.CacheRead, &t.CacheCreation); known {
			return ok
		}
		switch name {
		case "context_used":
			return jsoncodec.Int(l, &t.ContextUsed)
		case "context_window":
			return jsoncodec.Int(l, &t.ContextWindow)
		case "skipped":
			return jsoncodec.Int(l, &t.Skipped)
		default: // by_model
			return jsoncodec.Map(l, &t.ByModel, readModelUsage)
		}
	})
}

var cursorNames = []string{"path", "offset", "recent"}

func writeCursor(w *jwriter.Writer, c TranscriptCursor) {
	o := jsoncodec.Open(w)
	optString(o, "path", c.Path)
	if c.Offset != 0 {
		o.Key("offset").Int64(c.Offset)
	}
	if len(c.Recent) > 0 {
		jsoncodec.WriteList(o.Key("recent"), c.Recent, func(w *jwriter.Writer, u MessageUsage) {
			o := jsoncodec.Open(w)
			o.Key("id").String(u.ID)
			writeCounts(o, u.Input, u.Output, u.CacheRead, u.CacheCreation)
			writeExtra(o, u.CacheWrite1h, u.WebSearches)
			optString(o, "key", u.Key)
			o.Close()
		})
	}
	o.Close()
}

func readCursor(l *jlexer.Lexer, c *TranscriptCursor) bool {
	return jsoncodec.Object(l, cursorNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "path":
			return jsoncodec.String(l, &c.Path)
		case "offset":
			return jsoncodec.Int(l, &c.Offset)
		default: // recent
			return jsoncodec.List(l, &c.Recent, func(l *jlexer.Lexer, u *MessageUsage) bool {
				return jsoncodec.Object(l, usageNames, func(name string, l *jlexer.Lexer) bool {
					switch name {
					case "id":
						return jsoncodec.String(l, &u.ID)
					case "key":
						return jsoncodec.String(l, &u.Key)
					case "cache_write_1h":
						return jsoncodec.Int(l, &u.CacheWrite1h)
					case "web_searches":
						return jsoncodec.Int(l, &u.WebSearches)
					}
					ok, _ := readCount(name, l, &u.Input, &u.Output, &u.CacheRead, &u.CacheCreation)
					return ok
				})
			})
		}
	})
}

var subagentNames = []string{"cursor", "by_model", "stopped", "done"}

func writeSubagent(w *jwriter.Writer, a SubagentUsage) {
	o := jsoncodec.Open(w)
	if !a.Cursor.IsZero() {
		writeCursor(o.Key("cursor"), a.Cursor)
	}
	if len(a.ByModel) > 0 {
		jsoncodec.WriteMap(o.Key("by_model"), a.ByModel, writeModelUsage)
	}
	if a.Stopped {
		o.Key("stopped").Bool(true)
	}
	if a.Done {
		o.Key("done").Bool(true)
	}
	o.Close()
}

func readSubagent(l *jlexer.Lexer, a *SubagentUsage) bool {
	return jsoncodec.Object(l, subagentNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "cursor":
			return readCursor(l, &a.Cursor)
		case "by_model":
			return jsoncodec.Map(l, &a.ByModel, readModelUsage)
		case "stopped":
			return jsoncodec.Bool(l, &a.Stopped)
		default: // done
			return jsoncodec.Bool(l, &a.Done)
		}
	})
}

var (
	claudeCostNames  = []string{"usd", "unknown_model", "by_model"}
	claudeModelNames = []string{"input", "output", "cache_read", "cache_creation", "web_searches", "usd"}
)

func writeClaudeCost(w *jwriter.Writer, c ClaudeCost) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteFloat(o.Key("usd"), c.USD)
	if c.UnknownModel {
		o.Key("unknown_model").Bool(true)
	}
	if len(c.ByModel) > 0 {
		jsoncodec.WriteMap(o.Key("by_model"), c.ByModel, func(w *jwriter.Writer, m ClaudeModelCost) {
			o := jsoncodec.Open(w)
			writeCounts(o, m.Input, m.Output, m.CacheRead, m.CacheCreation)
			if m.WebSearches != 0 {
				o.Key("web_searches").Int64(m.WebSearches)
			}
			jsoncodec.WriteFloat(o.Key("usd"), m.USD)
			o.Close()
		})
	}
	o.Close()
}

func readClaudeCost(l *jlexer.Lexer, c *ClaudeCost) bool {
	return jsoncodec.Object(l, claudeCostNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "usd":
			return jsoncodec.Float(l, &c.USD)
		case "unknown_model":
			return jsoncodec.Bool(l, &c.UnknownModel)
		default: // by_model
			return jsoncodec.Map(l, &c.ByModel, func(l *jlexer.Lexer, m *ClaudeModelCost) bool {
				return jsoncodec.Object(l, claudeModelNames, func(name string, l *jlexer.Lexer) bool {
					if ok, known := readCount(name, l, &m.Input, &m.Output, &m.CacheRead, &m.CacheCreation); known {
						return ok
					}
					if name == "web_searches" {
						return jsoncodec.Int(l, &m.WebSearches)
					}
					return jsoncodec.Float(l, &m.USD)
				})
			})
		}
	})
}

var headCacheNames = []string{"dir", "head", "mod_ns", "size", "branch"}

func writeHeadCache(w *jwriter.Writer, h gitrepo.HeadCache) {
	o := jsoncodec.Open(w)
	optString(o, "dir", h.Dir)
	optString(o, "head", h.Head)
	if h.ModNS != 0 {
		o.Key("mod_ns").Int64(h.ModNS)
	}
	if h.Size != 0 {
		o.Key("size").Int64(h.Size)
	}
	optString(o, "branch", h.Branch)
	o.Close()
}

func readHeadCache(l *jlexer.Lexer, h *gitrepo.HeadCache) bool {
	return jsoncodec.Object(l, headCacheNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "dir":
			return jsoncodec.String(l, &h.Dir)
		case "head":
			return jsoncodec.String(l, &h.Head)
		case "mod_ns":
			return jsoncodec.Int(l, &h.ModNS)
		case "size":
			return jsoncodec.Int(l, &h.Size)
		default: // branch
			return jsoncodec.String(l, &h.Branch)
		}
	})
}

var terminalNames = []string{"kind", "socket", "pane", "session", "program"}

func writeTerminal(w *jwriter.Writer, t Terminal) {
	o := jsoncodec.Open(w)
	optString(o, "kind", t.Kind)
	optString(o, "socket", t.Socket)
	optString(o, "pane", t.Pane)
	optString(o, "session", t.Session)
	optString(o, "program", t.Program)
	o.Close()
}

func readTerminal(l *jlexer.Lexer, t *Terminal) bool {
	return jsoncodec.Object(l, terminalNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "kind":
			return jsoncodec.String(l, &t.Kind)
		case "socket":
			return jsoncodec.String(l, &t.Socket)
		case "pane":
			return jsoncodec.String(l, &t.Pane)
		case "session":
			return jsoncodec.String(l, &t.Session)
		default: // program
			return jsoncodec.String(l, &t.Program)
		}
	})
}
