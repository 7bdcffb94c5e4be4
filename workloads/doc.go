// Package workloads is the workload file: its schema (schema.go, the
// parameters of every operation kind in kind_*.go), the strict decoder and
// its rules (decode.go, rules.go, validate.go), the adapter presets
// (presets.go, preset_devices.go, preset_sources.go), loading with --set
// overrides (load.go) and sweep expansion (sweep.go). docs/workloads.md documents every key. It runs nothing: the
// traffic a file describes runs in package workloads/traffic, scenario
// files in workloads/scenario, and what a run measured is package results.
//
// Loading: the file is parsed into a yaml.Node tree; --set overrides edit
// the tree; a sweep is expanded into points; each point is decoded by a
// reflective decoder that knows every key's Go type and range (`check`
// tags, and the modelRules table for pcie.Spec and mtt.Spec fields), so
// each error names file:line:col, the key path and the allowed range;
// then cross-key rules, each kind's Check and each model's own Validate
// run. A file with any error yields no workload at all.
//
// Kinds register themselves with RegisterKind (kind.go): a name, a
// parameter struct whose tagged fields are the keys the kind adds to a
// generator, and a Check of those values against the whole file. What an
// operation of the kind does is its source, registered in
// workloads/traffic.
package workloads
