// Package theme owns the dashboard's look: every lipgloss style the panes use,
// built once by New from a palette that adapts to a light or dark terminal
// background. Nothing here runs at package init (spcstr hook links this
// package too and must start fast).
package theme

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles holds every style of the dashboard. Panes receive a *Styles and
// never build styles of their own.
type Styles struct {
	// NoColor is true when colors are off (NO_COLOR): panes then rely on
	// text marks (reverse video, brackets) rather than hue.
	NoColor bool

	App       lipgloss.Style
	Title     lipgloss.Style
	Subtle    lipgloss.Style
	Faint     lipgloss.Style
	Bold      lipgloss.Style
	Section   lipgloss.Style
	Key       lipgloss.Style
	Selected  lipgloss.Style
	Cursor    lipgloss.Style
	Tab       lipgloss.Style
	TabActive lipgloss.Style
	// TabShown is the tab of the pane shown beside the focused list
	// (TabActive marks the focused one).
	TabShown  lipgloss.Style
	Border    lipgloss.Style
	BorderFoc lipgloss.Style
	Status    lipgloss.Style
	Error     lipgloss.Style
	Warn      lipgloss.Style
	OK        lipgloss.Style
	Info      lipgloss.Style
	Filter    lipgloss.Style

	// Session statuses.
	Working    lipgloss.Style
	Waiting    lipgloss.Style
	NeedsInput lipgloss.Style
	Ended      lipgloss.Style
	Stale      lipgloss.Style

	// Charts.
	Bar       lipgloss.Style
	BarEmpty  lipgloss.Style
	Spark     lipgloss.Style
	GaugeLow  lipgloss.Style
	GaugeMid  lipgloss.Style
	GaugeHigh lipgloss.Style

	// Help styles the footer's key hints.
	Help help.Styles
}

// New builds the styles for a dark or light background. noColor drops every
// color but keeps bold, faint and reverse.
func New(isDark, noColor bool) *Styles {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	var (
		fg     = c("#1F2328", "#E6EDF3")
		subtle = c("#57606A", "#9DA7B3")
		faint  = c("#8C959F", "#6E7681")
		accent = c("#6639BA", "#B392F0")
		green  = c("#1A7F37", "#56D364")
		yellow = c("#9A6700", "#E3B341")
		red    = c("#CF222E", "#F85149")
		blue   = c("#0969DA", "#58A6FF")
		selBg  = c("#DDF4FF", "#1F3A5F")
		tabBg  = c("#EAEEF2", "#30363D")
	)
	base := lipgloss.NewStyle()
	s := &Styles{NoColor: noColor}
	s.App = base.Foreground(fg)
	s.Title = base.Bold(true).Foreground(accent)
	s.Subtle = base.Foreground(subtle)
	s.Faint = base.Foreground(faint).Faint(noColor)
	s.Bold = base.Bold(true)
	s.Section = base.Bold(true).Foreground(blue)
	s.Key = base.Bold(true).Foreground(accent)
	if noColor {
		s.Selected = base.Reverse(true)
		s.TabActive = base.Reverse(true).Bold(true)
	} else {
		s.Selected = base.Background(selBg).Bold(true)
		s.TabActive = base.Bold(true).Foreground(accent).Background(tabBg)
	}
	s.Cursor = base.Bold(true).Foreground(accent)
	s.Tab = base.Foreground(subtle)
	s.TabShown = base.Bold(true)
	s.Border = base.Border(lipgloss.NormalBorder()).BorderForeground(faint)
	s.BorderFoc = base.Border(lipgloss.NormalBorder()).BorderForeground(accent)
	s.Status = base.Foreground(subtle)
	s.Error = base.Foreground(red).Bold(noColor)
	s.Warn = base.Foreground(yellow)
	s.OK = base.Foreground(green)
	s.Info = base.Foreground(blue)
	s.Filter = base.Foreground(accent).Bold(true)

	s.Working = base.Foreground(green).Bold(true)
	s.Waiting = base.Foreground(blue)
	s.NeedsInput = base.Foreground(yellow).Bold(true)
	s.Ended = base.Foreground(faint)
	s.Stale = base.Foreground(red)

	s.Bar = base.Foreground(blue)
	s.BarEmpty = base.Foreground(faint)
	s.Spark = base.Foreground(green)
	s.GaugeLow = base.Foreground(green)
	s.GaugeMid = base.Foreground(yellow)
	s.GaugeHigh = base.Foreground(red)

	s.Help = help.DefaultStyles(isDark)
	if noColor {
		plain := base
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain,
		}
	}
	return s
}
