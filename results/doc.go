// Package results is what a run measured and what is done with it
// afterwards:
//
//   - the schema of an output folder: results.json (schema.go, Result),
//     results.csv (csv.go, tidy: a column per sweep axis, a row type, empty
//     cells for no data), timeseries.csv (series.go, timeseries.go),
//     config.json and meta.json (meta.go, with the provenance and the
//     configuration hash of provenance.go), written and read by files.go,
//     or one point at a time from a sweep's point store (store.go);
//   - figures rounded to their precision (round.go) and latency
//     histograms kept as buckets (buckets.go);
//   - the metrics (metrics.go): one table says, for every figure, its unit,
//     which way is better, its default regression threshold, its plot label
//     and its Go benchmark unit;
//   - comparison of two results with thresholds (compare.go), the Go
//     benchmark format for benchstat (benchfmt.go: a seed sweep gives
//     samples), sweep plots and latency CDFs (plot.go), time-series plots
//     (tsplot.go), the merge of a sweep's shards (merge.go);
//   - baselines (baseline.go): the folders of results/baselines/ that
//     `nicsim regress` reruns and compares.
//
// A Result holds no wall-clock time and no map, so the same workload file
// and seed give byte-identical results.json, results.csv and plots, on any
// number of jobs and shards; wall-clock figures live only in meta.json.
// The package runs nothing: package workloads/traffic makes a Result.
package results
