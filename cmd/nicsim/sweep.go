package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

const sweepUsage = "[--jobs N] [--shard i/n] [--out DIR] [--force] [--seed S] [--set path=value]... [--x PATH] [--metric M]... [--no-plots] [--quiet] FILE"

// sweepCmd is one `nicsim sweep`: its flags and its loaded file.
type sweepCmd struct {
	file    string
	jobs    int
	shard   int // this shard, 0-based
	shards  int // 1: the whole sweep
	out     string
	sets    multiFlag
	plots   results.PlotSpec
	noPlots bool
	quiet   bool
	force   bool
	lf      *workloads.File
}

func runSweepCmd(args []string, stdout, stderr io.Writer) int {
	c, code, ok := parseSweep(args, stderr)
	if !ok {
		return code
	}
	dir := c.dir()
	out, code, ok := c.stage(dir, stderr)
	if !ok {
		return code
	}
	defer out.Abort() // no-op once committed
	started := time.Now()
	pb := newProgress(stderr, c.lf.Stem)
	poll, stopSignals := interruptSource()
	defer stopSignals()
	res, err := traffic.RunSweep(c.lf, traffic.SweepOptions{Jobs: c.jobs, Shard: c.shard, Shards: c.shards, Interrupted: poll,
		Progress: func(done, total int) { pb.set(float64(done) / float64(total)) }})
	pb.finish()
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %s: %v\n", c.file, err)
		return exitFailed
	}
	m, err := c.write(out, res, args, started)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
		return exitFailed
	}
	printWarnings(stderr, "sweep", res)
	if !c.quiet {
		if len(res.Points) > 0 {
			printSummary(stdout, c.file, c.lf, res)
		}
		fmt.Fprintf(stdout, "%d of %d points run with %d jobs in %.2f s; results: %s\n", len(res.Points), len(c.lf.Points), c.jobs, m.WallSeconds, dir)
		for _, p := range m.Plots {
			fmt.Fprintf(stdout, "plot: %s\n", p)
		}
	}
	if res.Partial {
		fmt.Fprintf(stderr, "nicsim sweep: interrupted by %s; partial results (%d of %d points finished) written to %s\n",
			signalName(), finished(res), len(c.lf.Points), dir)
		return interruptedExit()
	}
	return exitOK
}

// parseSweep parses the flags and loads the file; false when the command
// stops (help, a usage error or an invalid file, with its exit code).
func parseSweep(args []string, stderr io.Writer) (*sweepCmd, int, bool) {
	c := &sweepCmd{}
	fs := newFlagSet("sweep", sweepUsage, stderr)
	fs.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "points run at once (1..1024); results do not depend on it")
	shard := fs.String("shard", "", "run only shard i of n (i/n, 0-based), for spreading a sweep over machines; combine with nicsim merge")
	fs.StringVar(&c.out, "out", "", "output folder (default results/runs/<file-stem>-<seed>-sweep[-shard-i-of-n])")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed (0..2^64-1)")
	fs.Var(&c.sets, "set", "override a key before validation, as path=value (repeatable)")
	metrics := plotFlags(fs, &c.plots, &c.noPlots)
	fs.BoolVar(&c.quiet, "quiet", false, "do not print the summary table")
	fs.BoolVar(&c.force, "force", false, "replace an output folder that holds a run of another configuration")
	usageTail(fs, stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return nil, code, false
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "nicsim sweep: want one workload file, got %d\n", len(files))
		fs.Usage()
		return nil, exitUsage, false
	}
	c.file = files[0]
	if c.jobs < 1 || c.jobs > 1024 {
		fmt.Fprintf(stderr, "nicsim sweep: --jobs %d is out of range 1..1024\n", c.jobs)
		return nil, exitUsage, false
	}
	var err error
	if c.shard, c.shards, err = parseShard(*shard); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: --shard %v\n", err)
		return nil, exitUsage, false
	}
	seed, ok := parseSeed("sweep", *seedStr, stderr)
	if !ok {
		return nil, exitUsage, false
	}
	if c.lf, err = workloads.Load(c.file, workloads.Options{Sets: c.sets, Seed: seed}); err != nil {
		fmt.Fprintln(stderr, err)
		fmt.Fprintln(stderr, "nicsim sweep: invalid workload file; nothing was run")
		return nil, exitFailed, false
	}
	if err := checkPlotFlags(&c.plots, *metrics, c.lf.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
		return nil, exitUsage, false
	}
	return c, exitOK, true
}

// dir is the output folder.
func (c *sweepCmd) dir() string {
	if c.out != "" {
		return c.out
	}
	leaf := fmt.Sprintf("%s-%d-sweep", c.lf.Stem, c.lf.Points[0].Run.Seed)
	if c.shards > 1 {
		leaf += fmt.Sprintf("-shard-%d-of-%d", c.shard, c.shards)
	}
	return filepath.Join("results", "runs", leaf)
}

// config is the sweep's config.json: it lists every point's label.
func (c *sweepCmd) config() results.Config {
	cfg := results.NewConfig(c.lf, c.sets)
	cfg.Labels = results.PointLabels(c.lf)
	return cfg
}

// stage prepares the output folder before anything runs (stageOuts).
func (c *sweepCmd) stage(dir string, stderr io.Writer) (*results.OutDir, int, bool) {
	b, err := results.EncodeIndented(c.config())
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
		return nil, exitFailed, false
	}
	outs, code, ok := stageOuts("sweep", []string{c.file}, []string{dir}, [][]byte{b}, c.force, stderr)
	if !ok {
		return nil, code, false
	}
	return outs[0], exitOK, true
}

// finished is the number of points of res that ran to their end.
func finished(res *results.Result) int {
	n := 0
	for _, p := range res.Points {
		if !p.Partial {
			n++
		}
	}
	return n
}

// write writes the output folder: results, config, the plots of a whole,
// complete sweep, and last meta.json; then puts it in place.
func (c *sweepCmd) write(out *results.OutDir, res *results.Result, args []string, started time.Time) (*results.SweepMeta, error) {
	dir := out.Tmp
	w0 := c.lf.Points[0]
	stop := "complete"
	if res.Partial {
		stop = "interrupted"
	}
	m := &results.SweepMeta{Meta: results.NewMeta(version, c.file, args, w0.Run.Seed, started), Jobs: c.jobs, Points: len(res.Points)}
	m.Partial, m.StopReason = res.Partial, stop
	if c.shards > 1 {
		m.Shard = fmt.Sprintf("%d/%d", c.shard, c.shards)
	}
	err := results.WriteResults(dir, res)
	if err == nil {
		err = results.WriteJSON(filepath.Join(dir, results.ConfigJSON), c.config())
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %v", out.Dest, err)
	}
	if !c.noPlots && c.shards < 2 && !res.Partial {
		if m.Plots, err = results.WritePlots(dir, res, c.plots); err != nil {
			return nil, err
		}
		for i, p := range m.Plots {
			m.Plots[i] = out.Final(p)
		}
	}
	m.WallSeconds = time.Since(started).Seconds()
	if err := results.WriteJSON(filepath.Join(dir, results.MetaJSON), m); err != nil {
		return nil, fmt.Errorf("writing %s: %v", out.Dest, err)
	}
	return m, out.Commit()
}

// plotFlags adds --x, --metric and --no-plots to fs.
func plotFlags(fs *flag.FlagSet, ps *results.PlotSpec, noPlots *bool) *multiFlag {
	var metrics multiFlag
	fs.StringVar(&ps.X, "x", "", "sweep axis for the plots' x axis (default: the first axis)")
	fs.Var(&metrics, "metric", "metric to plot (repeatable; default throughput_mops and latency_ns_p99): "+strings.Join(results.PlotMetricNames(), ", "))
	fs.BoolVar(noPlots, "no-plots", false, "write no plots")
	return &metrics
}

// checkPlotFlags completes the plot spec with the --metric flags (or the
// default metrics) and checks it against the sweep's axes.
func checkPlotFlags(ps *results.PlotSpec, metrics multiFlag, axes []workloads.SweepAxis) error {
	ps.Metrics = metrics
	if len(ps.Metrics) == 0 {
		ps.Metrics = results.DefaultPlotMetrics
	}
	return results.CheckPlotSpec(*ps, axes)
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
