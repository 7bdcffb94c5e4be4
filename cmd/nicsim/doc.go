// Command nicsim runs the nicsim RDMA NIC simulator. See README.md.
//
// Each command (the commands table in main.go, one file each) parses its
// flags and prints; the work is in the packages: workloads (loading and
// checking files), workloads/traffic (running them), workloads/scenario,
// results (output folders, compare, plots, merge, baselines) and pcie
// (nicsim pcie). docs/ARCHITECTURE.md follows a run file by file.
//
// Commands: run (workload files or scenarios: one point or a sweep), sweep
// (sweep points over jobs and shards, resume), check (load and check
// files), pcie (DMA micro-benchmarks), compare (two result folders against
// thresholds), merge (shards), regress (the committed baselines), validate
// (the published-measurement report), presets and bench-engine. The timing
// model lives in the packages; this command adds none of its own: wall
// time is measured only for progress lines and meta.json.
package main
