package tui

import (
	"bytes"
	"os"
	"runtime"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// The first frame. Bubble Tea v2.1.1 writes a program's frames only on
// its renderer's ticks, the first one a whole frame interval after the
// program starts: 67 ms at the dashboard's FrameRate, which is low for
// its idle cost. The bench measured where start-up went (strace, and the
// first frame at 2.2-2.5 × a static 60 fps Bubble Tea program's): about
// 50 ms of the 60 ms difference was that wait. So the dashboard draws its
// first frame itself, before the program starts, with the library Bubble
// Tea renders with (ultraviolet: the same cells, width rules and colour
// downsampling), and Bubble Tea's first tick redraws the whole screen over
// it in one write. TestFirstFrameAsBubbleTeaDrawsIt compares the two on a
// real terminal (tmux), so a Bubble Tea that draws differently fails
// there; a Bubble Tea that renders on demand (the open pull request
// charmbracelet/bubbletea#1776) makes this unnecessary.

// frameBytes is the bytes that draw v, full screen in the alternate
// screen of a w×h terminal, with the cursor hidden: what Bubble Tea's
// first flush of v draws.
func frameBytes(v tea.View, w, h int, env []string, profile colorprofile.Profile) []byte {
	buf := uv.NewScreenBuffer(w, h)
	uv.NewStyledString(v.Content).Draw(buf, buf.Bounds())
	var out bytes.Buffer
	out.WriteString(ansi.SetModeAltScreenSaveCursor + ansi.ResetModeTextCursorEnable)
	// Set up as Bubble Tea sets up its renderer (inline, no hard tabs,
	// no backspace moves), sized, then entering its alternate screen. On
	// a buffer it detects no terminal (and runs no "tmux info"): the
	// profile is the one the program was given.
	scr := uv.NewTerminalRenderer(&out, env)
	scr.SetColorProfile(profile)
	scr.SetRelativeCursor(true)
	scr.SetFullscreen(false)
	scr.SetTabStops(-1)
	scr.SetBackspace(false)
	scr.SetMapNewline(false)
	scr.SetScrollOptim(runtime.GOOS != "windows")
	scr.Erase()
	scr.Resize(w, h)
	scr.SaveCursor()
	scr.SetFullscreen(true)
	scr.SetRelativeCursor(false)
	scr.Erase()
	scr.Render(buf.RenderBuffer)
	_ = scr.Flush() // into out: cannot fail
	return out.Bytes()
}

// paintedOutput is the terminal the first frame was drawn on, as Bubble
// Tea's output: it notes whether Bubble Tea drew a frame of its own (it
// then leaves the alternate screen itself when it ends).
type paintedOutput struct {
	*os.File
	drew atomic.Bool
}

func (p *paintedOutput) Write(b []byte) (int, error) {
	if !p.drew.Load() && bytes.Contains(b, []byte(ansi.SetModeAltScreenSaveCursor)) {
		p.drew.Store(true)
	}
	return p.File.Write(b)
}

// undo leaves the alternate screen the first frame entered, unless Bubble
// Tea drew (a program killed or failing before its first tick never did).
func (p *paintedOutput) undo() {
	if !p.drew.Load() {
		_, _ = p.File.WriteString(ansi.ResetModeAltScreenSaveCursor + ansi.SetModeTextCursorEnable)
	}
}

// paintFirst draws m's first frame on out when out is a terminal and m
// uses the alternate screen. It returns m sized to the terminal (Bubble
// Tea sends the same size again) and the output to give Bubble Tea, or
// nil when nothing was drawn.
func paintFirst(out *os.File, m tea.Model, profile colorprofile.Profile) (tea.Model, *paintedOutput) {
	if !term.IsTerminal(out.Fd()) {
		return m, nil
	}
	w, h, err := term.GetSize(out.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return m, nil
	}
	m, _ = m.Update(tea.WindowSizeMsg{Width: w, Height: h}) // a resize starts no I/O
	v := m.View()
	if !v.AltScreen {
		return m, nil
	}
	// Written in raw mode, as Bubble Tea writes its frames (the renderer
	// counts on a line feed keeping the column), then the terminal is put
	// back as it was for Bubble Tea to find.
	was, err := term.MakeRaw(out.Fd())
	if err != nil {
		return m, nil
	}
	_, _ = out.Write(frameBytes(v, w, h, os.Environ(), profile)) // failed: so will Bubble Tea
	_ = term.Restore(out.Fd(), was)
	return m, &paintedOutput{File: out}
}
