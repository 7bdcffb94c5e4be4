package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nicsim/nicsim/results"
)

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", "--out DIR [--x PATH] [--metric M]... [--no-plots] SHARD_DIR...", stderr)
	out := fs.String("out", "", "output folder for the merged sweep (required)")
	var ps results.PlotSpec
	var noPlots bool
	metrics := plotFlags(fs, &ps, &noPlots)
	dirs, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *out == "" || len(dirs) == 0 {
		fmt.Fprintln(stderr, "nicsim merge: want --out DIR and at least one shard folder")
		fs.Usage()
		return exitUsage
	}
	var shards []*results.Shard
	var parts []*results.Result
	for _, d := range dirs {
		sh, err := results.ReadShard(d)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
			return exitFailed
		}
		shards, parts = append(shards, sh), append(parts, sh.Result)
	}
	merged, err := results.MergeShards(parts)
	if err == nil {
		err = results.SameConfig(shards)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	if err := checkPlotFlags(&ps, *metrics, merged.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitUsage
	}
	m, err := writeMerged(*out, dirs, merged, shards[0].Config, ps, noPlots)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "merged %d points from %d shards into %s\n", len(merged.Points), len(dirs), *out)
	for _, p := range m.Plots {
		fmt.Fprintf(stdout, "plot: %s\n", p)
	}
	return exitOK
}

// writeMerged writes the merged sweep's output folder: its results, the
// shards' config.json (identical in every shard, results.SameConfig: it
// holds the whole sweep's configuration and is copied byte for byte), its
// plots and meta.json.
func writeMerged(out string, dirs []string, merged *results.Result, cfgBytes []byte, ps results.PlotSpec, noPlots bool) (*results.MergeMeta, error) {
	var err error
	if err := results.WriteResults(out, merged); err != nil {
		return nil, fmt.Errorf("writing %s: %v", out, err)
	}
	if err := os.WriteFile(filepath.Join(out, results.ConfigJSON), cfgBytes, 0o644); err != nil {
		return nil, err
	}
	m := results.NewMergeMeta(version, dirs, merged.Seed)
	if !noPlots {
		if m.Plots, err = results.WritePlots(out, merged, ps); err != nil {
			return nil, err
		}
	}
	if err := results.WriteJSON(filepath.Join(out, results.MetaJSON), m); err != nil {
		return nil, err
	}
	return &m, nil
}
