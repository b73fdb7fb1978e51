// Package requirements owns the requirements framework (docs/requirements.md): the configuration cascade of requirements.yaml
// files, the per-branch state file in the Python framework's schema
// (<git common dir>/requirements/<branch>.json), the scope rules (session,
// branch, single_use, permanent), the gate that denies triggering tool calls
// and blocks Stop while a requirement is unsatisfied, and the operations that
// `spcstr req` and the dashboard call to inspect, satisfy and clear
// requirements. Every writer takes the same lock on the state file, the
// framework's own: an exclusive flock on <branch>.lock beside it.
//
// Skill names. A Skill call satisfies the requirements mapped to its skill
// (the framework's default mappings plus each requirement's
// satisfied_by_skill and auto_resolve_skill). Names are compared after
// trimming a leading "/" and surrounding spaces:
//   - equal names match;
//   - a configured name without a plugin prefix ("arch-review") matches that
//     skill from any plugin ("requirements-framework:arch-review");
//   - a configured name with a prefix ("requirements-framework:arch-review")
//     matches the call that names it without a prefix ("arch-review"), as the
//     seed's flow does, but not the same skill of another plugin
//     ("other:arch-review").
package requirements
