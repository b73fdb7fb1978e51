// Command tuifloor is the idle dashboard's baseline: the least a Bubble Tea
// v2 program costs while nothing changes. It draws one fixed full-screen
// frame in the alternate screen and waits for q; Bubble Tea's renderer
// still wakes at its frame rate to compare the frame with the last one.
// The dashboard's idle CPU benchmark runs it in the same tmux, in the same
// run, beside spcstr tui.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
)

type model struct{ w, h int }

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if msg.String() == "q" {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m model) View() tea.View {
	lines := make([]string, max(m.h, 1))
	for i := range lines {
		lines[i] = strings.Repeat("·", max(m.w, 1))
	}
	lines[0] = "tuifloor sessions"
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	return v
}

var fps = flag.Int("fps", 0, "the renderer's frame rate (0: Bubble Tea's default, 60)")

func main() {
	flag.Parse()
	var opts []tea.ProgramOption
	if *fps > 0 {
		opts = append(opts, tea.WithFPS(*fps))
	}
	if _, err := tea.NewProgram(model{}, opts...).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "tuifloor:", err)
		os.Exit(1)
	}
}
