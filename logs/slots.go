package logs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// SlotsFile is the in-flight slots file in a logs folder: one byte per log
// spcstr knows by name (slotNames), 1 while an append to that log is under
// way, 0 otherwise. It replaces the marker folders of InflightDir for those
// logs: setting and clearing a byte of an existing file is a pwrite, with
// no change to any folder.
//
// The protocol, and why it is safe:
//
//   - Only the holder of a log's lock writes the log's slot. An appender
//     takes the lock, sets the slot, appends, clears the slot once the log
//     is whole, and only then unlocks; a repairer (RepairInterrupted) clears
//     it under the lock too. Each slot is its own byte and is written
//     without reading the others, so appenders of different logs never
//     undo each other's slots.
//   - flock locks die with their process. So a slot found set while its
//     log's lock is free was left by an appender that was killed: its log
//     may end in a torn line, and nobody else can be touching it.
//   - The check at the start of every hook reads all slots at once, without
//     any lock. For each set slot it tries the log's lock without waiting:
//     held means a live hook is appending (the slot is its own) or
//     repairing, and the slot is left alone. If it gets the lock it reads
//     the slot again: an appender that finished between the read and the
//     lock has cleared it, and there is nothing to do. Still set, under the
//     lock, means killed: the log is repaired and the slot cleared. Of two
//     hooks checking at once only one repairs: the other finds the lock
//     held and moves on, or takes it afterwards and finds the slot clear.
//   - A repair killed part-way leaves the slot set (it is cleared only once
//     the log is whole), so the next hook repairs again; repairing a whole
//     log changes nothing.
//   - The file is created empty and extended to slotsSize with ftruncate,
//     which two hooks may both do: extending to the same size keeps any
//     byte already set. A file of any other size, or not a regular file (a
//     symlink, folder, FIFO), is not spcstr's: appenders set it aside and
//     start a new one, the check ignores it. A slot lost with a file set
//     aside is still covered: the next append to a torn log repairs it.
//   - The slot numbers never change (new names are only added at the end),
//     so a slot left by an older spcstr means the same log to a newer one.
//
// Logs without a slot (an event spcstr does not know yet) keep using the
// InflightDir markers.
const SlotsFile = ".inflight.slots"

// slotsSize is the slots file's size: room for slotNames to grow.
const slotsSize = 256

// slotNames gives each log spcstr names a fixed slot: its index here. It is
// append-only: a name never moves, and new names go at the end.
var slotNames = [...]string{
	"decisions", "rejected", "repairs",
	"session_start", "setup", "instructions_loaded", "user_prompt_submit",
	"user_prompt_expansion", "message_display", "pre_tool_use",
	"permission_request", "permission_denied", "post_tool_use",
	"post_tool_use_failure", "post_tool_batch", "notification",
	"subagent_start", "subagent_stop", "task_created", "task_completed",
	"stop", "stop_failure", "teammate_idle", "config_change", "cwd_changed",
	"directory_added", "file_changed", "worktree_create", "worktree_remove",
	"pre_compact", "post_compact", "elicitation", "elicitation_result",
	"session_end", "pre_model_switch", "post_model_switch",
}

// slotOf returns the slot of the log file called base ("pre_tool_use.json"),
// or -1 when it has none.
func slotOf(base string) int {
	stem, ok := strings.CutSuffix(base, Ext)
	if !ok {
		return -1
	}
	for i, n := range slotNames {
		if n == stem {
			return i
		}
	}
	return -1
}

// slotsRel is the slots file of the logs folder holding the log at rel.
func slotsRel(rel string) string { return filepath.Join(filepath.Dir(rel), SlotsFile) }

// openSlots opens the slots file of the logs folder holding rel for update,
// creating it if missing. A file that is not a slots file is set aside and
// a new one made; if that fails too, the error says so and the caller uses
// a marker folder instead.
func openSlots(root *os.Root, rel string) (*os.File, error) {
	name := slotsRel(rel)
	for try := 0; ; try++ {
		f, fi, err := safefs.OpenOwn(root, name, os.O_RDWR|os.O_CREATE, 0o644, slotsSize)
		if err == nil {
			switch fi.Size() {
			case slotsSize:
				return f, nil
			case 0: // new, or its creator is about to do the same
				err = f.Truncate(slotsSize)
				if err == nil {
					return f, nil
				}
				f.Close()
				return nil, fmt.Errorf("size slots file: %w", err)
			}
			f.Close()
			err = fmt.Errorf("slots file %s: %d bytes, not %d", name, fi.Size(), slotsSize)
		}
		if errors.Is(err, fs.ErrNotExist) || try == 1 {
			return nil, err
		}
		// Not a slots file (another size, a symlink, a folder, a FIFO):
		// keep it under another name, never trust it, start a new one.
		if rerr := root.Rename(name, jsonfile.SetAsideName(name, time.Now())); rerr != nil {
			return nil, fmt.Errorf("set aside %s: %w", name, rerr)
		}
	}
}

// setSlot writes v into slot i.
func setSlot(f *os.File, i int, v byte) error {
	_, err := f.WriteAt([]byte{v}, int64(i))
	return err
}

// readSlots reads the slots file of the logs folder dir into buf. ok is
// false when there is none or it is not one (the next append replaces it):
// then no slot is set as far as the check is concerned. It only reads, at
// most slotsSize bytes, following no symlink (safefs.ReadHead): four system
// calls on every hook.
func readSlots(dir string, buf *[slotsSize]byte) (ok bool) {
	n, size, err := safefs.ReadHead(dir, SlotsFile, buf[:])
	return err == nil && size == slotsSize && n == slotsSize
}
