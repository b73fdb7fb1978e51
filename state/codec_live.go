package state

import (
	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"

	"github.com/dylan-gluck/spcstr/internal/jsoncodec"
)

var (
	liveNames   = []string{"at", "usd", "input", "output", "context_percent", "five_hour", "seven_day"}
	windowNames = []string{"used_percent", "resets_at"}
)

func writeLive(w *jwriter.Writer, c LiveCost) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteTime(o.Key("at"), c.At)
	jsoncodec.WriteFloat(o.Key("usd"), c.USD)
	o.Key("input").Int64(c.Input)
	o.Key("output").Int64(c.Output)
	if c.ContextPercent != 0 {
		jsoncodec.WriteFloat(o.Key("context_percent"), c.ContextPercent)
	}
	if c.FiveHour != nil {
		writeWindow(o.Key("five_hour"), *c.FiveHour)
	}
	if c.SevenDay != nil {
		writeWindow(o.Key("seven_day"), *c.SevenDay)
	}
	o.Close()
}

func writeWindow(w *jwriter.Writer, r RateWindow) {
	o := jsoncodec.Open(w)
	jsoncodec.WriteFloat(o.Key("used_percent"), r.UsedPercent)
	if !r.ResetsAt.IsZero() {
		jsoncodec.WriteTime(o.Key("resets_at"), r.ResetsAt)
	}
	o.Close()
}

func readLive(l *jlexer.Lexer, c *LiveCost) bool {
	return jsoncodec.Object(l, liveNames, func(name string, l *jlexer.Lexer) bool {
		switch name {
		case "at":
			return jsoncodec.Time(l, &c.At)
		case "usd":
			return jsoncodec.Float(l, &c.USD)
		case "input":
			return jsoncodec.Int(l, &c.Input)
		case "output":
			return jsoncodec.Int(l, &c.Output)
		case "context_percent":
			return jsoncodec.Float(l, &c.ContextPercent)
		case "five_hour":
			return jsoncodec.Ptr(l, &c.FiveHour, readWindow)
		default: // seven_day
			return jsoncodec.Ptr(l, &c.SevenDay, readWindow)
		}
	})
}

func readWindow(l *jlexer.Lexer, r *RateWindow) bool {
	return jsoncodec.Object(l, windowNames, func(name string, l *jlexer.Lexer) bool {
		if name == "used_percent" {
			return jsoncodec.Float(l, &r.UsedPercent)
		}
		return jsoncodec.Time(l, &r.ResetsAt)
	})
}
