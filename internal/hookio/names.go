package hookio

import (
	"strings"
	"unicode"
)

// Event names Claude Code fires today (see Claude Code's hooks reference). Events not
// listed here are still recorded under their own snake_case log name.
const (
	SessionStart        = "SessionStart"
	Setup               = "Setup"
	InstructionsLoaded  = "InstructionsLoaded"
	UserPromptSubmit    = "UserPromptSubmit"
	UserPromptExpansion = "UserPromptExpansion"
	MessageDisplay      = "MessageDisplay"
	PreToolUse          = "PreToolUse"
	PermissionRequest   = "PermissionRequest"
	PermissionDenied    = "PermissionDenied"
	PostToolUse         = "PostToolUse"
	PostToolUseFailure  = "PostToolUseFailure"
	PostToolBatch       = "PostToolBatch"
	Notification        = "Notification"
	SubagentStart       = "SubagentStart"
	SubagentStop        = "SubagentStop"
	TaskCreated         = "TaskCreated"
	TaskCompleted       = "TaskCompleted"
	Stop                = "Stop"
	StopFailure         = "StopFailure"
	TeammateIdle        = "TeammateIdle"
	ConfigChange        = "ConfigChange"
	CwdChanged          = "CwdChanged"
	DirectoryAdded      = "DirectoryAdded"
	FileChanged         = "FileChanged"
	WorktreeCreate      = "WorktreeCreate"
	WorktreeRemove      = "WorktreeRemove"
	PreCompact          = "PreCompact"
	PostCompact         = "PostCompact"
	Elicitation         = "Elicitation"
	ElicitationResult   = "ElicitationResult"
	SessionEnd          = "SessionEnd"
	PreModelSwitch      = "PreModelSwitch"
	PostModelSwitch     = "PostModelSwitch"
)

// KnownEvents lists the 33 events Claude Code 2.1.330 accepts in
// settings.json, in the order its documentation lists them, followed by
// PreModelSwitch and PostModelSwitch (accepted by 2.1.330, not yet
// documented).
var KnownEvents = []string{
	SessionStart, Setup, InstructionsLoaded, UserPromptSubmit, UserPromptExpansion,
	MessageDisplay, PreToolUse, PermissionRequest, PermissionDenied, PostToolUse,
	PostToolUseFailure, PostToolBatch, Notification, SubagentStart, SubagentStop,
	TaskCreated, TaskCompleted, Stop, StopFailure, TeammateIdle, ConfigChange,
	CwdChanged, DirectoryAdded, FileChanged, WorktreeCreate, WorktreeRemove,
	PreCompact, PostCompact, Elicitation, ElicitationResult, SessionEnd,
	PreModelSwitch, PostModelSwitch,
}

// maxNameLen bounds event names used in file names.
const maxNameLen = 64

// SnakeName converts an event name in either spelling ("PostToolUseFailure" or
// "post_tool_use_failure") to the snake_case used for log file names. It
// returns "" when the name cannot safely be used as a file name: empty, too
// long, or containing anything but letters, digits and underscores. A
// trailing or doubled underscore is refused too: CamelName drops
// underscores, so "stop_" would otherwise become the event "Stop".
func SnakeName(name string) string {
	if name == "" || len(name) > maxNameLen {
		return ""
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && runes[i+1] >= 'a' && runes[i+1] <= 'z'
				if (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9') ||
					(prev >= 'A' && prev <= 'Z' && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_':
			b.WriteRune(r)
		default:
			return ""
		}
	}
	s := b.String()
	if s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return ""
	}
	return s
}

// CamelName converts an event name in either spelling to Claude Code's
// CamelCase spelling ("session_start" → "SessionStart"). Known events keep
// their exact spelling; it returns "" for names SnakeName rejects.
func CamelName(name string) string {
	snake := SnakeName(name)
	if snake == "" {
		return ""
	}
	for _, known := range KnownEvents {
		if SnakeName(known) == snake {
			return known
		}
	}
	var b strings.Builder
	up := true
	for _, r := range snake {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// IsKnown reports whether name (either spelling) is an event Claude Code
// documents today.
func IsKnown(name string) bool {
	snake := SnakeName(name)
	for _, known := range KnownEvents {
		if SnakeName(known) == snake {
			return true
		}
	}
	return false
}
