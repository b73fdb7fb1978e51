package strategy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/state"
)

// NotifySwitchFile is the project's notification switch in .spcstr/,
// written by `spcstr notify on|off` (the hooks architecture's /sound
// toggle). Without it notifications are on.
const NotifySwitchFile = "notify.json"

// NotifySwitch is the content of NotifySwitchFile.
type NotifySwitch struct {
	// Enabled is false while notifications are off.
	Enabled bool `json:"enabled"`
	// ChangedAt is when it was last switched.
	ChangedAt time.Time `json:"changed_at"`
}

// NotifySwitchPath returns the switch's path in a project.
func NotifySwitchPath(l state.Layout) string { return filepath.Join(l.Dir(), NotifySwitchFile) }

// ReadNotifySwitch reads the project's switch: on when there is none. A
// switch that cannot be read is set aside (jsonfile.Read) and the error
// returned; notifications then stay on.
func ReadNotifySwitch(l state.Layout) (NotifySwitch, error) {
	sw := NotifySwitch{Enabled: true}
	err := jsonfile.Read(NotifySwitchPath(l), &sw)
	switch {
	case err == nil:
		return sw, nil
	case errors.Is(err, fs.ErrNotExist):
		return NotifySwitch{Enabled: true}, nil
	}
	return NotifySwitch{Enabled: true}, fmt.Errorf("notify switch: %w", err)
}

// SetNotifySwitch turns the project's notifications on or off (under the
// file's lock, atomically). It needs the project's .spcstr/ folder.
func SetNotifySwitch(ctx context.Context, l state.Layout, on bool, now time.Time) error {
	sw := NotifySwitch{}
	return jsonfile.Update(ctx, NotifySwitchPath(l), &sw, func(bool, error) (bool, error) {
		sw = NotifySwitch{Enabled: on, ChangedAt: now.UTC()}
		return true, nil
	})
}

// DescribeNotify says, for `spcstr notify`, whether the project's
// notifications are on, and whether a notify strategy is there to give
// them.
func DescribeNotify(l state.Layout, cfg *config.Config) (string, error) {
	sw, err := ReadNotifySwitch(l)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if sw.Enabled {
		b.WriteString("Notifications are on")
	} else {
		b.WriteString("Notifications are off")
	}
	if !sw.ChangedAt.IsZero() {
		fmt.Fprintf(&b, " (switched %s)", sw.ChangedAt.Local().Format("2006-01-02 15:04"))
	}
	b.WriteString(".")
	configured := slices.ContainsFunc(Active(cfg), func(i Info) bool { return i.Name == NameNotify })
	switch {
	case !configured:
		b.WriteString(" No notify strategy is enabled in .spcstr/config.yaml, so nothing rings either way" +
			" (add `notify: {bell: true}` under strategies:).")
	case sw.Enabled:
		b.WriteString(" The notify strategy rings or runs its command when Claude needs input or finished." +
			" `spcstr notify off` silences it.")
	default:
		b.WriteString(" The notify strategy records each notification in decisions.json (reason muted:<status>)" +
			" but rings no bell and runs no command. `spcstr notify on` turns it back on.")
	}
	return b.String(), nil
}
