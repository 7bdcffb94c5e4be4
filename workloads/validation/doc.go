// Package validation compares nicsim with published measurements. Its
// folder, workloads/validation, holds one YAML file per experiment;
// `nicsim validate` (make validate) runs them all and writes
// docs/VALIDATION.md with its plots in docs/img, and verdicts.json keeps
// each row's verdict so that a test notices a figure that stops matching.
//
// # A validation file
//
// A validation file is a workload file (every key of docs/workloads.md,
// loaded and checked as `nicsim run` loads it, sweeps included) plus one
// more top-level key, `validation`:
//
//	validation:
//	  source: pcie-bench                # the report's table; files of one source share it
//	  source_title: "pcie-bench: ..."   # the table's heading (files of one source agree)
//	  plots:                            # optional: published and simulated curves on one set of axes
//	    - {name: rtt, title: ..., x_label: ..., y_label: ..., log_x: true, legend: top-left}
//	  rows:                             # one per published figure
//	    - id: pcie-rtt-64               # unique over all files
//	      figure: DMA read round trip, 64 B
//	      section: "1.1"                # the docs/sources.md section that records it
//	      citation: lat_dma_sizes.txt, E5-2620v3   # where in the original
//	      published: 546                # as published, in unit
//	      published_text: about 2 µs    # optional: the source's own words instead
//	      unit: ns
//	      nicsim: {metric: latency_ns_p50, generator: reads, at: {generators.reads.size_bytes: 64}}
//	      tolerance_pct: 5              # or accept: {min: 3.5} / {max: 1000} / both
//	      calibration: true             # the figure set a preset value: not a prediction
//	      bound_by: {source: host read latency, nicsim: [Host.Memory]}
//	      plot: {name: rtt, series: E5-2620v3, x: 64}
//	      note: one line on how the experiment maps to the source's
//	    - id: ...
//	      not_modelled: why nicsim has no such figure   # instead of nicsim
//
// # Taking nicsim's value
//
// A measure (`nicsim:`) is one of
//
//   - {metric, generator, at}: a metric of results.Metrics (throughput_mops,
//     latency_ns_p50, ...), `completed` (a generator's operations in the
//     measured window) or `stat:<name>` (a counter or formula of the
//     point's statistics, over the whole run including setup); of the
//     generator named (or a part, "gen/part"; default the only generator);
//     at the one sweep point `at` picks (every axis given, values as the
//     sweep writes them);
//   - {ratio: [a, b]}: a / b, or {difference: [a, b]}: a - b, of two
//     measures;
//
// each optionally times `scale`. A figure per operation over a steady
// state is a ratio of differences between two points that differ only in
// run.duration_us: the runs are identical up to the shorter one's end, so
// setup and warm-up cancel.
//
// # Verdicts
//
// A measured row is within when |nicsim / published - 1| <= tolerance_pct
// (or nicsim lies in accept), else outside (a miss: docs/DEVIATIONS.md
// gives its cause; no constant is tuned to one row). Calibration rows are
// reported as calibration (or calibration, outside). A row without a value
// (a ratio over zero) is outside. Bound by compares the source's limiting
// resource with nicsim's bound_by once results carry one; until then the
// report says n/a. A row's nicsim names match a resource of that name or
// below it ("NIC.PCIe.Down" matches "NIC.PCIe.Down.Credits.PH"), and an
// index "[*]" matches any instance ("Host.Core[*].MMIO").
//
// The report is deterministic: no time, host or absolute path; files in
// name order, sources by the lowest docs/sources.md section they cite,
// rows in file order; plots are SVG (no embedded fonts or timestamps).
package validation
