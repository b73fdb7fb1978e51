package tui

import "github.com/charmbracelet/x/ansi"

func lipglossWidth(s string) int { return ansi.StringWidth(s) }

// plain is the frame without styles.
func plain(m Model) string { return ansi.Strip(m.Render()) }
