package store

import "github.com/dylan-gluck/spcstr/state"

// ErrorLabel is what a recorded error is labelled with: the tool it came
// from ("Bash", so that a line reads "Bash: Exit code 1", as the export
// writes it), else its type ("tool_failure", "spcstr").
func ErrorLabel(e state.Error) string {
	if tool, ok := e.Context["tool"].(string); ok && tool != "" {
		return tool + ":"
	}
	return e.Type
}
