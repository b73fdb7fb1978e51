package export

import (
	"strings"
)

// decisions writes the gates' and strategies' part of the summary: the
// decision counts (from decisions.json), then the Timeline of decisions,
// errors and custom events, the Errors and the Custom Events (from the
// session's observability.jsonl, or decisions.json without it).
func (m *md) decisions() {
	d, o := m.s.Decisions, m.s.Observability
	m.heading("Decisions", -1)
	m.p("- **Allows**: %s", num(int64(d.Allows)))
	if d.Contexts > 0 {
		m.p(" (%s added context)", num(int64(d.Contexts)))
	}
	m.p("\n- **Warnings**: %s\n- **Blocks**: %s\n- **Denies**: %s\n- **Errors**: %s\n",
		num(int64(d.Warnings)), num(int64(d.Blocks)), num(int64(d.Denies)), num(int64(d.Errors)))
	switch {
	case len(d.Timeline) == 0:
		m.p("\nNo gate or strategy decided anything in this session.\n")
	case d.Blocks+d.Denies+d.Errors == 0 && d.Warnings > 0:
		m.p("\nOnly warnings: no gate or strategy blocked or denied anything, and %s shown to the user.\n",
			pluralVerb(d.Warnings, "warning was", "warnings were"))
	case d.Blocks+d.Denies+d.Errors == 0:
		m.p("\nNo gate or strategy blocked or denied anything.\n")
	}
	if d.DryRun > 0 {
		if d.DryRun == len(d.Timeline) {
			m.p("\nAll of them were dry runs: logged, not enforced.\n")
		} else if d.DryRun == 1 {
			m.p("\n1 of them was a dry run: logged, not enforced.\n")
		} else {
			m.p("\n%s of them were dry runs: logged, not enforced.\n", num(int64(d.DryRun)))
		}
	}
	if len(d.Sources) > 0 {
		m.p("\nSources: %s.\n", strings.Join(d.Sources, ", "))
	}
	m.timeline(o)
	m.gateErrors(o)
	m.customEvents(o)
}

func (m *md) timeline(o Observability) {
	m.p("\n### Timeline\n\n")
	if len(o.Timeline) == 0 {
		m.p("Nothing happened in the gates and strategies.\n")
		return
	}
	if o.Source != "" {
		m.p("_From %s._\n\n", o.Source)
	}
	m.p("| Time | Strategy | Hook | Event | Details |\n| --- | --- | --- | --- | --- |\n")
	shown := o.Timeline[max(0, len(o.Timeline)-mdMaxRows):]
	for _, e := range shown {
		what := strings.ToUpper(e.Decision)
		switch e.EventType {
		case "error":
			what = "ERROR"
		case "custom":
			what = "`" + e.CustomEventType + "`"
		}
		if e.DryRun {
			what += " (dry run)"
		}
		src := e.StrategyName
		if src == "" {
			src = "spcstr"
		}
		m.p("| %s | %s | %s | %s | %s |\n", m.time(e.Timestamp), cell(src), cell(e.HookName), what, cell(e.Details))
	}
	m.omitted(len(o.Timeline)-len(shown), "earlier timeline entries")
}

func (m *md) gateErrors(o Observability) {
	m.p("\n### Errors\n\n")
	if len(o.Errors) == 0 {
		m.p("None.\n")
		return
	}
	shown := o.Errors[max(0, len(o.Errors)-mdMaxRows):]
	for _, e := range shown {
		src := e.StrategyName
		if src == "" {
			src = "spcstr"
		}
		m.p("- %s · %s at %s · `%s`: %s\n", m.time(e.Timestamp), cell(src), cell(e.HookName), cell(e.ErrorType), inline(e.ErrorMessage, mdMaxInline))
	}
	m.omitted(len(o.Errors)-len(shown), "earlier errors")
}

func (m *md) customEvents(o Observability) {
	m.p("\n### Custom Events\n\n")
	if len(o.CustomEvents) == 0 {
		m.p("None.\n")
		return
	}
	for _, c := range o.CustomEvents {
		m.p("- `%s` (%s): %s\n", c.Type, cell(c.StrategyName), plural(c.Count, "time"))
	}
}

// pluralVerb is "1 <one>" or "N <many>".
func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(int64(n)) + " " + many
}
