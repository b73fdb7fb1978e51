package requirements

// CommandMatcher is a compiled command pattern.
type CommandMatcher interface{ MatchString(string) bool }

// CompileCommandPattern compiles a pattern with the semantics of
// trigger_tools' command_pattern: a regular expression written for
// Python's re, searched anywhere in the command (re.search); RE2 when it
// can, else the spcstr-pyre companion (trigger.go). Other policies that
// match Bash commands (the permission-policy strategy) use it so that one
// pattern means the same everywhere.
func CompileCommandPattern(s string) (CommandMatcher, error) { return compilePattern(s) }
