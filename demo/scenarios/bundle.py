#!/usr/bin/env python3
"""Turn harness runs into the demo's bundled sessions.

Usage: bundle.py OUTDIR NAME DEST
  OUTDIR  a harness run's output folder (go run ./e2e/harness/run) (captured.jsonl, home/, project/)
  NAME    the scenario name (feature, background, ...)
  DEST    demo/sessions

Writes DEST/NAME.jsonl: one line per hook event, in order:
  {"t": ms since the first event, "payload": {...}}
with the run's paths replaced by ${PROJECT} (the project folder) and
${CLAUDE_HOME} (the run's ~/.claude), and DEST/NAME.transcript.jsonl: the
main transcript's assistant lines that carry usage, trimmed to what token
counting reads, each with "t" (ms since the first event) so the demo can
write them as the session goes.
"""
import json, os, re, sys
from datetime import datetime

outdir, name, dest = sys.argv[1], sys.argv[2], sys.argv[3]
project = os.path.realpath(os.path.join(outdir, "project"))
home = os.path.realpath(os.path.join(outdir, "home", ".claude"))

slug = project.replace("/", "-").replace(".", "-")

def rewrite(text):
    text = text.replace(home, "${CLAUDE_HOME}").replace(project, "${PROJECT}")
    text = text.replace(slug, "demo-" + name)
    # Claude Code's private scratch folder of the run (background agents'
    # output files) is no path the demo has.
    return re.sub(r"/tmp/cc-harness-tmp\.[A-Za-z0-9]+", "/tmp/claude-scratch", text)

recs = [json.loads(l) for l in open(os.path.join(outdir, "captured.jsonl"))]
t0 = recs[0]["ts"]
transcript = None
with open(os.path.join(dest, name + ".jsonl"), "w") as f:
    for r in recs:
        p = r["payload"]
        transcript = transcript or p.get("transcript_path")
        line = {"t": int((r["ts"] - t0) * 1000), "payload": p}
        f.write(rewrite(json.dumps(line, separators=(",", ":"), ensure_ascii=False)) + "\n")

with open(os.path.join(dest, name + ".transcript.jsonl"), "w") as f:
    if transcript and os.path.exists(transcript):
        for l in open(transcript):
            d = json.loads(l)
            if d.get("type") != "assistant" or "usage" not in d.get("message", {}):
                continue
            ts = datetime.fromisoformat(d["timestamp"].replace("Z", "+00:00")).timestamp()
            m = d["message"]
            keep = {"t": int((ts - t0) * 1000), "type": "assistant", "isSidechain": d.get("isSidechain", False),
                    "message": {"id": m.get("id"), "model": m.get("model"), "role": "assistant", "usage": m.get("usage")}}
            f.write(json.dumps(keep, separators=(",", ":")) + "\n")
