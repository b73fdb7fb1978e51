package feedback

import (
	"path"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"slices"
	"strings"
)

// DomainCapability is the hooks architecture's capability domain: VQL
// artifacts, Nuclei templates and the code under a capabilities folder,
// with their own reviewer and tester (capability-reviewer,
// capability-tester).
const DomainCapability = "capability"

// Source file extensions the default rules route (lower case).
var (
	// frontendExtensions: the JavaScript/TypeScript family and the
	// component formats built on it. The seed's table names .tsx and .jsx;
	// its flow says any code edit (".go, .ts, .py, etc.") starts the loop,
	// so plain .ts/.js and their module variants go to frontend too (a
	// Node back end adds a rule of its own before the defaults).
	frontendExtensions = []string{".tsx", ".jsx", ".ts", ".js", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte", ".astro"}
	// backendExtensions: Go and Python (the seed's table) and the other
	// common server and systems languages.
	backendExtensions = []string{".go", ".py", ".rs", ".java", ".kt", ".kts", ".scala", ".rb", ".php", ".cs",
		".ex", ".exs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp"}
	// otherCodeExtensions are code no default rule routes: an edit of one
	// is named in the dashboard's loop pane and, once per session, in a
	// message to the user, so that they can add a rule.
	otherCodeExtensions = []string{".swift", ".m", ".mm", ".dart", ".lua", ".zig", ".nim", ".hs", ".ml", ".fs",
		".clj", ".erl", ".jl", ".r", ".pl", ".groovy", ".elm", ".sol", ".sh", ".bash", ".zsh", ".ps1", ".sql"}
)

// capabilityRules route the capability domain: VQL anywhere, YAML under a
// nuclei or nuclei-templates folder, and code or YAML under a capabilities
// folder.
func capabilityRules() []Rule {
	capExt := append(append(append([]string{".vql", ".yaml", ".yml"}, backendExtensions...), frontendExtensions...), otherCodeExtensions...)
	return []Rule{
		{Domain: DomainCapability, Extensions: []string{".vql"}},
		{Domain: DomainCapability, Paths: []string{"**/nuclei-templates/**", "**/nuclei/**"}, Extensions: []string{".yaml", ".yml"}},
		{Domain: DomainCapability, Paths: []string{"**/capabilities/**"}, Extensions: capExt},
	}
}

// IsCode reports whether file has the extension of a source language
// spcstr knows (routed by default or not).
func IsCode(file string) bool {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(file, `\`, "/")))
	return ext != "" && (slices.Contains(backendExtensions, ext) || slices.Contains(frontendExtensions, ext) ||
		slices.Contains(otherCodeExtensions, ext) || ext == ".vql")
}

// Unrouted reports a code file (IsCode) that no rule routes: no rule
// matches it at all. A file an `ignore: true` rule matches is left out on
// purpose, and so is anything that is not code (Markdown, go.mod).
func (c *Config) Unrouted(file string) bool {
	return IsCode(file) && c.rule(file) == nil
}

// UnroutedFiles returns the files of list that are Unrouted, in order.
func (c *Config) UnroutedFiles(list []string) []string {
	var out []string
	for _, f := range list {
		if c.Unrouted(f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// NoteUnrouted is the session note that says the user was told about code
// no rule routes.
const NoteUnrouted = "feedback:unrouted-code"

// unrouted tells the user, once per session, that an edited code file is
// not covered by any rule, so the loop will not review or test it. The
// dashboard's loop pane lists every such file.
func (g *Gate) unrouted(in *gate.Input, rel string) []gate.Verdict {
	if !g.cfg.Unrouted(rel) || !in.Session.Note(NoteUnrouted) {
		return nil
	}
	return []gate.Verdict{{Source: Source, Reason: "unrouted-code",
		SystemMessage: "spcstr feedback loop: " + termtext.Line(rel) + " is code that no feedback rule routes to a domain, so the loop " +
			"will not review or test it (nor other such files this session; the dashboard's loop pane lists them). " +
			"Add a rule under feedback.rules in .spcstr/config.yaml, e.g. {domain: backend, extensions: [" +
			termtext.Line(strings.ToLower(path.Ext(rel))) + "]}."}}
}
