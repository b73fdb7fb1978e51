package strategy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/notifier"
)

type notifyOptions struct {
	Common `yaml:",inline"`
	// Bell rings the terminal (BEL on the controlling terminal).
	Bell bool `yaml:"bell"`
	// Command is a shell command run detached with a JSON object
	// {session_id, event, status, message, project_dir} on stdin and the
	// message in SPCSTR_MESSAGE.
	Command string `yaml:"command"`
}

// Notify statuses.
const (
	NotifyNeedsInput      = "needs_input"
	NotifyNeedsPermission = "needs_permission"
	NotifyFinished        = "finished"
)

// maxNotifyMessage keeps the JSON on stdin far below a pipe's buffer, so
// writing it never waits for the command to read.
const maxNotifyMessage = 2 << 10

// notify tells the user when the session needs input or finished. It never
// blocks, and costs the hook at most a fork: the command runs detached
// (its own session, output to /dev/null) and nobody waits for it.
type notify struct{ o notifyOptions }

func buildNotify(n ast.Node, _ *config.Config) (Strategy, Common, error) {
	var o notifyOptions
	if err := decodeStrict(n, &o); err != nil {
		return nil, o.Common, err
	}
	if !o.Bell && strings.TrimSpace(o.Command) == "" {
		return nil, o.Common, at(n, "", fmt.Errorf("set bell: true, a command, or both"))
	}
	return &notify{o: o}, o.Common, nil
}

func (s *notify) Hooks() []Hook {
	return []Hook{{Event: hookio.Notification}, {Event: hookio.Stop}, {Event: hookio.PermissionRequest, Tool: "*"}}
}

// NotifyMessage is what the notify command reads on stdin.
type NotifyMessage = notifier.Message

func (s *notify) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	m := NotifyMessage{SessionID: in.Event.SessionID, Event: in.Name, ProjectDir: in.Layout.Root}
	project := filepath.Base(in.Layout.Root)
	switch in.Name {
	case hookio.Notification:
		m.Status = NotifyNeedsInput
		if in.Event.NotificationType == "permission_prompt" {
			m.Status = NotifyNeedsPermission
		}
		m.Message = firstNonEmpty(in.Event.Message, "Claude needs your input") + " (" + project + ")"
	case hookio.PermissionRequest:
		m.Status = NotifyNeedsPermission
		m.Message = "Claude needs your permission to use " + firstNonEmpty(in.Event.ToolName, "a tool") + " (" + project + ")"
	case hookio.Stop:
		m.Status = NotifyFinished
		m.Message = "Claude finished (" + project + ")"
	default:
		return nil, nil
	}
	m.Message = strings.ReplaceAll(plain(m.Message), "\n", " ")
	if len(m.Message) > maxNotifyMessage {
		m.Message = strings.ToValidUTF8(m.Message[:maxNotifyMessage], "")
	}
	sw, err := ReadNotifySwitch(in.Layout)
	if !sw.Enabled { // `spcstr notify off`: recorded, nothing rung or run
		return []gate.Verdict{{Decision: gate.Allow, Reason: "muted:" + m.Status}}, nil
	}
	return s.deliver(in, m, err)
}

// deliver rings the bell and starts the command for m; readErr is an
// unreadable notify switch (notifications stay on), reported with the
// verdict.
func (s *notify) deliver(in *gate.Input, m NotifyMessage, readErr error) ([]gate.Verdict, error) {
	var how []string
	failed := readErr
	if in.Replay { // a dry-run replay: say what would ring and run
		if s.o.Bell {
			how = append(how, "bell")
		}
		if s.o.Command != "" {
			how = append(how, "command")
		}
	} else if s.o.Bell {
		if notifier.RingBell() {
			how = append(how, "bell")
		}
	}
	if s.o.Command != "" && !in.Replay && in.RunCommands {
		if err := notifier.StartDetached(s.o.Command, m, in.Layout.Root); err != nil {
			failed = errors.Join(failed, fmt.Errorf("notify command: %w", err))
		} else {
			how = append(how, "command")
		}
	}
	v := gate.Verdict{Decision: gate.Allow, Reason: "notified:" + m.Status}
	if len(how) > 0 {
		v.Reason += ":" + strings.Join(how, "+")
	}
	return []gate.Verdict{v}, failed
}
