package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

func init() {
	register("sweep", "run a workload's sweep points in parallel; CSV, JSON and plots", runSweepCmd)
}

const sweepUsage = "[--jobs N] [--shard i/n] [--out DIR] [--seed S] [--set path=value]... [--x PATH] [--metric M]... [--no-plots] [--quiet] FILE"

// sweepMeta is meta.json of a sweep: how it was run.
type sweepMeta struct {
	meta
	Jobs   int      `json:"jobs"`
	Shard  string   `json:"shard,omitempty"` // "i/n" for a shard
	Points int      `json:"points_run"`
	Plots  []string `json:"plots,omitempty"`
}

func runSweepCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sweep", sweepUsage, stderr)
	jobs := fs.Int("jobs", runtime.NumCPU(), "points run at once (1..1024); results do not depend on it")
	shard := fs.String("shard", "", "run only shard i of n (i/n, 0-based), for spreading a sweep over machines; combine with nicsim merge")
	out := fs.String("out", "", "output folder (default results/runs/<file-stem>-<seed>-sweep[-shard-i-of-n])")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed (0..2^64-1)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a key before validation, as path=value (repeatable)")
	x := fs.String("x", "", "sweep axis for the plots' x axis (default: the first axis)")
	var metrics multiFlag
	fs.Var(&metrics, "metric", "metric to plot (repeatable; default throughput_mops and latency_ns_p99): "+strings.Join(plotMetricNames(), ", "))
	noPlots := fs.Bool("no-plots", false, "write no plots")
	quiet := fs.Bool("quiet", false, "do not print the summary table")
	usageTail(fs, stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "nicsim sweep: want one workload file, got %d\n", len(files))
		fs.Usage()
		return exitUsage
	}
	if *jobs < 1 || *jobs > 1024 {
		fmt.Fprintf(stderr, "nicsim sweep: --jobs %d is out of range 1..1024\n", *jobs)
		return exitUsage
	}
	si, sn, err := parseShard(*shard)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: --shard %v\n", err)
		return exitUsage
	}
	var seed *uint64
	if *seedStr != "" {
		v, err := strconv.ParseUint(*seedStr, 0, 64)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim sweep: --seed %q is not a whole number in 0..2^64-1\n", *seedStr)
			return exitUsage
		}
		seed = &v
	}
	lf, err := workloads.Load(files[0], workloads.Options{Sets: sets, Seed: seed})
	if err != nil {
		fmt.Fprintln(stderr, err)
		fmt.Fprintln(stderr, "nicsim sweep: invalid workload file; nothing was run")
		return exitFailed
	}
	ps := plotSpec{X: *x, Metrics: metrics}
	if len(ps.Metrics) == 0 {
		ps.Metrics = []string{"throughput_mops", "latency_ns_p99"}
	}
	if err := checkPlotSpec(ps, lf.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
		return exitUsage
	}
	w0 := lf.Points[0]
	dir := *out
	if dir == "" {
		leaf := fmt.Sprintf("%s-%d-sweep", lf.Stem, w0.Run.Seed)
		if sn > 1 {
			leaf += fmt.Sprintf("-shard-%d-of-%d", si, sn)
		}
		dir = filepath.Join("results", "runs", leaf)
	}
	started := time.Now()
	pb := newProgress(stderr, lf.Stem)
	poll, stopSignals := interruptSource()
	defer stopSignals()
	res, err := traffic.RunSweep(lf, traffic.SweepOptions{Jobs: *jobs, Shard: si, Shards: sn, Interrupted: poll,
		Progress: func(done, total int) { pb.set(float64(done) / float64(total)) }})
	pb.finish()
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %s: %v\n", files[0], err)
		return exitFailed
	}
	cfg := config{Workload: w0.Name, Seed: w0.Run.Seed, Sets: sets, Sweep: lf.Sweep, Points: lf.Points,
		Kinds: workloads.KindNames(), Presets: workloads.PresetNames()}
	for _, p := range lf.Points {
		cfg.Labels = append(cfg.Labels, workloads.Label(p.Point))
	}
	stop := "complete"
	if res.Partial {
		stop = "interrupted"
	}
	m := sweepMeta{meta: meta{Version: version, File: files[0], Args: args, Seed: w0.Run.Seed, Partial: res.Partial,
		StopReason: stop, StartedAt: started.UTC().Format(time.RFC3339)}, Jobs: *jobs, Points: len(res.Points)}
	if sn > 1 {
		m.Shard = fmt.Sprintf("%d/%d", si, sn)
	}
	if err := writeOutputs(dir, res, cfg, meta{}); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: writing %s: %v\n", dir, err)
		return exitFailed
	}
	if !*noPlots && sn < 2 && !res.Partial {
		plots, err := writePlots(dir, res, ps)
		if err == nil {
			var cdf []string
			cdf, err = writeCDFPlots(dir, res)
			plots = append(plots, cdf...)
		}
		if err != nil {
			fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
			return exitFailed
		}
		m.Plots = plots
	}
	m.WallSeconds = time.Since(started).Seconds()
	m.GoVersion = runtime.Version()
	if err := writeJSON(filepath.Join(dir, "meta.json"), m); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: writing %s: %v\n", dir, err)
		return exitFailed
	}
	printWarnings(stderr, "sweep", res)
	if !*quiet {
		if len(res.Points) > 0 {
			printSummary(stdout, files[0], lf, res)
		}
		fmt.Fprintf(stdout, "%d of %d points run with %d jobs in %.2f s; results: %s\n", len(res.Points), len(lf.Points), *jobs, m.WallSeconds, dir)
		for _, p := range m.Plots {
			fmt.Fprintf(stdout, "plot: %s\n", p)
		}
	}
	if res.Partial {
		fmt.Fprintf(stderr, "nicsim sweep: interrupted; partial results written to %s\n", dir)
		return exitInterrupted
	}
	return exitOK
}

// parseShard parses "i/n" (0 <= i < n <= ShardsMax); "" is the whole sweep.
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q: want i/n, e.g. 0/4", s)
	}
	if n < 1 || n > workloads.ShardsMax {
		return 0, 0, fmt.Errorf("%q: n must be in 1..%d", s, workloads.ShardsMax)
	}
	if i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q: i must be in 0..%d", s, n-1)
	}
	return i, n, nil
}
