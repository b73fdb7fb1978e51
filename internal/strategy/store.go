package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// StateFile is the per-session file where strategies keep their state, one
// namespace (a JSON object) per strategy name.
const StateFile = "strategies.json"

func statePath(in *gate.Input) (string, error) {
	d, err := in.Layout.SessionDir(in.Event.SessionID)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, StateFile), nil
}

// updateNS runs a locked read-modify-write of one strategy's namespace in
// the session's strategies.json: v is filled from the namespace, fn
// changes it, and it is written back when fn reports a change.
func updateNS(ctx context.Context, in *gate.Input, name string, v any, fn func() bool) error {
	p, err := statePath(in)
	if err != nil {
		return err
	}
	doc := map[string]json.RawMessage{}
	return jsonfile.Update(ctx, p, &doc, func(fresh bool, _ error) (bool, error) {
		if doc == nil {
			doc = map[string]json.RawMessage{}
		}
		if raw, ok := doc[name]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				return false, fmt.Errorf("%s: namespace %s: %w", p, name, err)
			}
		}
		if !fn() {
			return false, nil
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return false, err
		}
		doc[name] = raw
		return true, nil
	})
}

// readNS reads one strategy's namespace without locking (the file is
// replaced atomically). A missing file or namespace leaves v unchanged.
func readNS(in *gate.Input, name string, v any) error {
	p, err := statePath(in)
	if err != nil {
		return err
	}
	doc := map[string]json.RawMessage{}
	if err := jsonfile.Read(p, &doc); err != nil {
		if isNotExist(err) {
			return nil
		}
		return err
	}
	if raw, ok := doc[name]; ok {
		return json.Unmarshal(raw, v)
	}
	return nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
