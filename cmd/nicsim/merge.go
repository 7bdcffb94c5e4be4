package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nicsim/nicsim/results"
)

func init() {
	register("merge", "combine the shard outputs of a sweep into the output of the whole sweep", runMerge)
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", "--out DIR [--x PATH] [--metric M]... [--no-plots] SHARD_DIR...", stderr)
	out := fs.String("out", "", "output folder for the merged sweep (required)")
	x := fs.String("x", "", "sweep axis for the plots' x axis (default: the first axis)")
	var metrics multiFlag
	fs.Var(&metrics, "metric", "metric to plot (repeatable; default throughput_mops and latency_ns_p99): "+strings.Join(plotMetricNames(), ", "))
	noPlots := fs.Bool("no-plots", false, "write no plots")
	dirs, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *out == "" || len(dirs) == 0 {
		fmt.Fprintln(stderr, "nicsim merge: want --out DIR and at least one shard folder")
		fs.Usage()
		return exitUsage
	}
	var parts []*results.Result
	for _, d := range dirs {
		r, err := results.ReadResult(d)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
			return exitFailed
		}
		parts = append(parts, r)
	}
	merged, err := results.MergeShards(parts)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	ps := plotSpec{X: *x, Metrics: metrics}
	if len(ps.Metrics) == 0 {
		ps.Metrics = []string{"throughput_mops", "latency_ns_p99"}
	}
	if err := checkPlotSpec(ps, merged.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitUsage
	}
	// Every shard's config.json holds the whole sweep's configuration; it is
	// copied byte for byte.
	cfgPath := filepath.Join(dirs[0], "config.json")
	cfgBytes, err := os.ReadFile(cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	if !json.Valid(cfgBytes) {
		fmt.Fprintf(stderr, "nicsim merge: %s is not valid JSON\n", cfgPath)
		return exitFailed
	}
	if err := writeOutputs(*out, merged, config{}, meta{}); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: writing %s: %v\n", *out, err)
		return exitFailed
	}
	if err := os.WriteFile(filepath.Join(*out, "config.json"), cfgBytes, 0o644); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	m := struct {
		Version   string   `json:"nicsim_version"`
		GoVersion string   `json:"go_version"`
		MergedAt  string   `json:"merged_at"`
		Shards    []string `json:"shards"`
		Seed      uint64   `json:"seed"`
		Plots     []string `json:"plots,omitempty"`
	}{Version: version, GoVersion: runtime.Version(), MergedAt: time.Now().UTC().Format(time.RFC3339), Shards: dirs, Seed: merged.Seed}
	if !*noPlots {
		plots, err := writePlots(*out, merged, ps)
		if err == nil {
			var cdf []string
			cdf, err = writeCDFPlots(*out, merged)
			plots = append(plots, cdf...)
		}
		if err != nil {
			fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
			return exitFailed
		}
		m.Plots = plots
	}
	if err := writeJSON(filepath.Join(*out, "meta.json"), m); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "merged %d points from %d shards into %s\n", len(merged.Points), len(dirs), *out)
	for _, p := range m.Plots {
		fmt.Fprintf(stdout, "plot: %s\n", p)
	}
	return exitOK
}
