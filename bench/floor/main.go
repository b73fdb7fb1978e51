// Command floor is the hook-latency benchmark's baseline: the least a hook
// recorder written in Go can do. It decodes the event on stdin and appends
// one line to a file, ending with an fsync as spcstr's state write does, so
// that durability is compared like with like (docs/state.md).
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	data, _ := io.ReadAll(os.Stdin)
	var event map[string]any
	if json.Unmarshal(data, &event) != nil {
		return
	}
	line, err := json.Marshal(event)
	if err != nil {
		return
	}
	f, err := os.OpenFile(os.Args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	_ = f.Sync()
	_ = f.Close()
}
