package sessions

import "strings"

// Found is what a search of everything recorded (internal/search, the
// engine of spcstr search) found for the filter: per session id, the field
// that matched and the text around it ("tool_input.file_path: CHANGELOG.md").
type Found map[string]string

// SetFound gives the list what a search for filter found; it is ignored
// when the filter has changed since (a late answer).
func (m *Model) SetFound(filter string, found Found) {
	if strings.TrimSpace(filter) != strings.TrimSpace(m.filter) {
		return
	}
	sel, had := m.Selected()
	m.found = found
	m.refilter()
	if had {
		m.Select(sel.ID)
	}
	m.clamp()
}

// Searching reports whether the filter has text a search could look for.
func (m *Model) Searching() bool { return strings.TrimSpace(m.filter) != "" }
