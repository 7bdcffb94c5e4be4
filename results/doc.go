// Package results is what a run measured and what is done with it
// afterwards: the result schema (schema.go: results.json), comparison of
// two results metric by metric with thresholds (compare.go), the Go
// benchmark format for benchstat (benchfmt.go) and the merge of a sweep's
// shards (merge.go). A Result holds no wall-clock time and no map, so the
// same workload file and seed give byte-identical results.json.
//
// The folder results/ also holds the committed baselines
// (results/baselines/) that `make regress` reruns and compares.
package results
