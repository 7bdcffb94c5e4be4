package main

import (
	"fmt"
	"io"
	"os"

	"github.com/nicsim/nicsim/results"
)

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", "--out DIR [--force] [--x PATH] [--metric M]... [--no-plots] SHARD_DIR...", stderr)
	out := fs.String("out", "", "output folder for the merged sweep (required)")
	force := fs.Bool("force", false, "replace an output folder that holds a run of another configuration")
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
	if !outsideShards(*out, dirs, stderr) {
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
	if err == nil {
		_, err = results.SameOrder(shards)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitFailed
	}
	if err := checkPlotFlags(&ps, *metrics, merged.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim merge: %v\n", err)
		return exitUsage
	}
	outs, code, ok := stageOuts("merge", []string{dirs[0]}, []string{*out}, [][]byte{shards[0].Config}, *force, stderr)
	if !ok {
		return code
	}
	defer outs[0].Abort() // no-op once committed
	m, err := writeMerged(outs[0], dirs, merged, shards[0], ps, noPlots)
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

// outsideShards refuses an output folder that is, or lies in, an input
// shard folder (putting it in place would replace that shard), or that
// holds one.
func outsideShards(out string, dirs []string, stderr io.Writer) bool {
	for _, d := range dirs {
		what := ""
		switch {
		case within(out, d):
			what = "is, or lies in, the shard folder " + d
		case within(d, out):
			what = "holds the shard folder " + d
		default:
			continue
		}
		fmt.Fprintf(stderr, "nicsim merge: --out %s %s, an input, which putting the merged folder in place would replace; choose another --out; nothing was merged\n", out, what)
		return false
	}
	return true
}

// writeMerged writes the merged sweep's output folder: its results, the
// shards' config.json (identical in every shard, results.SameConfig: it
// holds the whole sweep's configuration and is copied byte for byte), its
// plots and meta.json, whose same_time_order is the shards' (one for all,
// results.SameOrder), not the merging binary's.
func writeMerged(o *results.OutDir, dirs []string, merged *results.Result, first *results.Shard, ps results.PlotSpec, noPlots bool) (*results.MergeMeta, error) {
	cfgBytes := first.Config
	var err error
	if err := results.WriteResults(o.Tmp, merged); err != nil {
		return nil, fmt.Errorf("writing %s: %v", o.Dest, err)
	}
	if err := os.WriteFile(o.Path(results.ConfigJSON), cfgBytes, 0o644); err != nil {
		return nil, err
	}
	m := results.NewMergeMeta(version, dirs, merged.Seed)
	m.SameTimeOrder = first.SameTimeOrder
	if !noPlots {
		if m.Plots, err = results.WritePlots(o.Tmp, merged, ps); err != nil {
			return nil, err
		}
		for i, p := range m.Plots {
			m.Plots[i] = o.Final(p)
		}
	}
	if err := results.WriteJSON(o.Path(results.MetaJSON), m); err != nil {
		return nil, err
	}
	return &m, o.Commit()
}
