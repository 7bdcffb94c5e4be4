package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

const sweepUsage = "[--jobs N] [--shard i/n] [--out DIR] [--force] [--seed S] [--set path=value]... [--x PATH] [--metric M]... [--no-plots] [--quiet] FILE\n       nicsim sweep --resume DIR [--jobs N] [--quiet]"

// sweepCmd is one `nicsim sweep`: its flags and its loaded file.
type sweepCmd struct {
	file    string
	args    []string // the command line as meta.json records it
	jobs    int
	shard   int // this shard, 0-based
	shards  int // 1: the whole sweep
	out     string
	sets    multiFlag
	plots   results.PlotSpec
	noPlots bool
	quiet   bool
	force   bool
	resume  string // --resume DIR
	lf      *workloads.File
}

func runSweepCmd(args []string, stdout, stderr io.Writer) int {
	results.PrefetchJSON() // the result files' types, analysed beside the sweep
	c, code, ok := parseSweep(args, stderr)
	if !ok {
		return code
	}
	results.PrefetchProvenance() // for meta.json, written as the sweep starts: git, if asked, runs while the output folder is prepared
	if j := c.lf.JobsWithin(); c.jobs > j {
		fmt.Fprintf(stderr, "nicsim sweep: running %d points at once, not %d: that is what run.memory_max_bytes = %s holds (docs/workloads.md, \"Memory budget\")\n",
			j, c.jobs, workloads.Bytes(c.lf.Points[0].Run.MemoryMaxBytes))
		c.jobs = j
	}
	dir := c.dir()
	out, code, ok := c.stage(dir, stderr)
	if !ok {
		return code
	}
	started := time.Now()
	store, resumed, err := c.openStore(out.Tmp, started)
	if err != nil {
		return failed(stderr, out, err)
	}
	pb := newProgress(stderr, "sweep "+c.lf.Stem)
	poll, stopSignals := interruptSource()
	defer stopSignals()
	var ran speed
	onPoint := func(k int, p *results.PointResult) error {
		ran.add(p)
		return store.Put(k, p)
	}
	run, err := traffic.RunSweep(c.lf, traffic.SweepOptions{Jobs: c.jobs, Shard: c.shard, Shards: c.shards, Interrupted: poll,
		Skip: store.Has, OnPoint: onPoint, Progress: pb.points})
	pb.finish()
	if err != nil {
		return failed(stderr, out, fmt.Errorf("%s: %w", c.file, err))
	}
	res, m, err := c.write(out, store, run.Partial, started, resumed)
	if err != nil {
		return failed(stderr, out, err)
	}
	c.report(stdout, stderr, dir, res, m)
	if !c.quiet {
		printSweepSpeed(stdout, ran, m, c.jobs)
	}
	if res.Partial {
		fmt.Fprintf(stderr, "nicsim sweep: interrupted by %s; partial results (%d of %d points) written to %s; nicsim sweep --resume %s runs the rest\n",
			signalName(), m.Points, len(c.lf.Points), dir, dir)
		return interruptedExit()
	}
	return exitOK
}

// failed reports a sweep that failed before its folder was put in place,
// saying where its finished points are now (a resumed sweep's folder is
// moved back: OutDir.Release) and how to go on.
func failed(stderr io.Writer, out *results.OutDir, err error) int {
	at := out.Release()
	points := filepath.Join(at, results.PointsDir)
	if st, serr := os.Stat(points); serr != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "nicsim sweep: %v; the sweep's output is in %s\n", err, at)
		return exitFailed
	}
	fmt.Fprintf(stderr, "nicsim sweep: %v; the points finished so far are in %s, and nicsim sweep --resume %s runs the rest\n",
		err, points, out.Dest)
	return exitFailed
}

// openStore opens the store of the points finished in tmp, counts those
// a resumed sweep finds there and marks the sweep running in meta.json.
func (c *sweepCmd) openStore(tmp string, started time.Time) (*results.PointStore, int, error) {
	store, err := results.NewPointStore(tmp)
	if err != nil {
		return nil, 0, err
	}
	resumed := 0
	for k := range c.lf.Points {
		if store.Has(k) {
			resumed++
		}
	}
	return store, resumed, c.writeMeta(tmp, "running", started, nil)
}

// report prints the warnings, and unless quiet the summary (of sweeps of
// at most summaryPointsMax points), the output folder and the plots.
func (c *sweepCmd) report(stdout, stderr io.Writer, dir string, res *results.Result, m *results.SweepMeta) {
	printWarnings(stderr, "sweep", res)
	if c.quiet {
		return
	}
	if len(res.Points) > 0 && len(res.Points) <= summaryPointsMax {
		printSummary(stdout, c.file, c.lf, res)
	}
	fmt.Fprintf(stdout, "%d of %d points run with %d jobs in %.2f s; results: %s\n", m.Points, len(c.lf.Points), c.jobs, m.WallSeconds, dir)
	for _, p := range m.Plots {
		fmt.Fprintf(stdout, "plot: %s\n", p)
	}
}

// summaryPointsMax is the largest sweep whose summary table is printed.
const summaryPointsMax = 256

// parseSweep parses the flags and loads the file; false when the command
// stops (help, a usage error or an invalid file, with its exit code). With
// --resume DIR the flags and file are those DIR's meta.json recorded.
func parseSweep(args []string, stderr io.Writer) (*sweepCmd, int, bool) {
	c := &sweepCmd{args: args}
	fs := newFlagSet("sweep", sweepUsage, stderr)
	fs.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "points run at once (1..1024); results do not depend on it")
	shard := fs.String("shard", "", "run only shard i of n (i/n, 0-based), for spreading a sweep over machines; combine with nicsim merge")
	fs.StringVar(&c.out, "out", "", "output folder (default results/runs/<file-stem>-<seed>-<config hash>-sweep[-shard-i-of-n])")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed (0..2^64-1)")
	fs.Var(&c.sets, "set", "override a key before validation, as path=value (repeatable)")
	metrics := plotFlags(fs, &c.plots, &c.noPlots)
	fs.BoolVar(&c.quiet, "quiet", false, "do not print the summary table")
	fs.BoolVar(&c.force, "force", false, "replace an output folder that holds a run of another configuration")
	fs.StringVar(&c.resume, "resume", "", "run only the points missing from the output folder DIR of an interrupted sweep (same workload file, flags and configuration)")
	usageTail(fs, stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return nil, code, false
	}
	if c.resume != "" {
		return resumeSweep(c, files, fs, stderr)
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
	if !ok || !checkSets("sweep", c.sets, stderr) {
		return nil, exitUsage, false
	}
	if c.lf, err = workloads.Load(c.file, workloads.Options{Sets: c.sets, Seed: seed}); err != nil {
		fmt.Fprintln(stderr, err)
		code := loadFailure(err)
		fmt.Fprintln(stderr, loadFailureNote("sweep", code))
		return nil, code, false
	}
	if err := checkPlotFlags(&c.plots, *metrics, c.lf.Sweep); err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v\n", err)
		return nil, exitUsage, false
	}
	return c, exitOK, true
}

// config is the sweep's config.json: it lists every point's label.
func (c *sweepCmd) config() results.Config {
	cfg := results.NewConfig(c.lf, c.sets)
	cfg.Labels = results.PointLabels(c.lf)
	return cfg
}

// stage prepares the output folder before anything runs: a new sweep's
// destination is checked as a run's is (stageOuts) and the sweep works in
// results.SweepWorkDir, beside it; a resumed sweep goes on there.
func (c *sweepCmd) stage(dir string, stderr io.Writer) (*results.OutDir, int, bool) {
	var out *results.OutDir
	var err error
	if c.resume != "" {
		out, err = results.ResumeSweep(dir)
	} else {
		var cfg []byte
		if cfg, err = results.EncodeIndented(c.config()); err == nil {
			out, err = results.StageSweep(dir, cfg, c.force)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim sweep: %v; nothing was run\n", err)
		return nil, exitFailed, false
	}
	return out, exitOK, true
}

// resumeSweep sets c up to finish the sweep in c.resume: the command line
// its meta.json recorded, parsed again (from the same directory), with
// --jobs and --quiet of this one; the workload must resolve to the same
// configuration.
func resumeSweep(c *sweepCmd, files []string, fs *flag.FlagSet, stderr io.Writer) (*sweepCmd, int, bool) {
	extra := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { extra[f.Name] = true })
	delete(extra, "resume")
	delete(extra, "jobs")
	delete(extra, "quiet")
	if len(files) > 0 || len(extra) > 0 {
		fmt.Fprintln(stderr, "nicsim sweep: --resume DIR takes the file and flags from DIR/meta.json; only --jobs and --quiet may be given")
		return nil, exitUsage, false
	}
	var m results.SweepMeta
	b, err := results.ReadOutputFile(filepath.Join(results.ResumeSource(c.resume), results.MetaJSON))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil || m.ConfigHash == "" {
		fmt.Fprintf(stderr, "nicsim sweep: --resume %s: not the output folder of a sweep (%v)\n", c.resume, err)
		return nil, exitUsage, false
	}
	if m.StopReason == "complete" {
		fmt.Fprintf(stderr, "nicsim sweep: --resume %s: the sweep is complete; nothing to run\n", c.resume)
		return nil, exitUsage, false
	}
	again := append(append([]string(nil), m.Args...), "--out", c.resume)
	r, code, ok := parseSweep(again, stderr)
	if !ok {
		return nil, code, false
	}
	if h := results.ConfigHash(r.lf); h != m.ConfigHash {
		fmt.Fprintf(stderr, "nicsim sweep: --resume %s: %s now resolves to another configuration (hash %.8s, the sweep's is %.8s); run it anew\n",
			c.resume, r.file, h, m.ConfigHash)
		return nil, exitFailed, false
	}
	if o := results.BuildProvenance().SameTimeOrder; o != m.SameTimeOrder {
		fmt.Fprintf(stderr, "nicsim sweep: --resume %s: the sweep ran same-time events in %s order, this binary runs them in %s order (docs/accuracy.md, section 8); resume it with a build like the one that began it\n",
			c.resume, results.SameTimeOrderName(m.SameTimeOrder), results.SameTimeOrderName(o))
		return nil, exitFailed, false
	}
	if p := results.BuildProvenance(); p.Commit != m.Commit {
		fmt.Fprintf(stderr, "nicsim sweep: warning: resuming a sweep begun at commit %.12s with commit %.12s\n", m.Commit, p.Commit)
	}
	r.jobs, r.quiet, r.args, r.resume = c.jobs, c.quiet, m.Args, c.resume
	return r, exitOK, true
}

// dir is the output folder.
func (c *sweepCmd) dir() string {
	if c.out != "" {
		return c.out
	}
	leaf := defaultLeaf(c.lf) + "-sweep"
	if c.shards > 1 {
		leaf += fmt.Sprintf("-shard-%d-of-%d", c.shard, c.shards)
	}
	return filepath.Join("results", "runs", leaf)
}

// write writes the output folder from the point store: results.json,
// results.csv and timeseries.csv streamed one point at a time, config.json,
// the plots of a whole, complete sweep, and last meta.json. A complete
// sweep's point store is removed. It returns the result without its
// points' statistics (for the summary and warnings).
func (c *sweepCmd) write(out *results.OutDir, store *results.PointStore, interrupted bool, started time.Time, resumed int) (*results.Result, *results.SweepMeta, error) {
	dir := out.Tmp
	idx, err := workloads.ShardPoints(len(c.lf.Points), c.shard, c.shards)
	if err != nil {
		return nil, nil, err
	}
	var have []int
	for _, k := range idx {
		if store.Has(k) {
			have = append(have, k)
		}
	}
	w0 := c.lf.Points[0]
	res := &results.Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: c.lf.Sweep, Partial: interrupted || len(have) < len(idx)}
	slim := *res
	err = results.WriteStreamed(dir, res, len(have), func(i int) (*results.PointResult, []byte, error) {
		p, js, err := store.Get(have[i])
		if err == nil {
			slim.Points = append(slim.Points, slimPoint(*p, i))
		}
		return p, js, err
	})
	if err == nil {
		err = results.WriteJSON(filepath.Join(dir, results.ConfigJSON), c.config())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("writing %s: %v", out.Dest, err)
	}
	var plots []string
	if !c.noPlots && c.shards < 2 && !res.Partial {
		if plots, err = results.WritePlots(dir, &slim, c.plots); err != nil {
			return nil, nil, err
		}
		for i, p := range plots {
			plots[i] = out.Final(p)
		}
	}
	m := &results.SweepMeta{Points: len(have), Resumed: resumed, Plots: plots}
	stop := "complete"
	if res.Partial {
		stop = "interrupted"
	}
	if err := c.writeMeta(dir, stop, started, m); err != nil {
		return nil, nil, err
	}
	if !res.Partial {
		if err := store.Remove(); err != nil {
			return nil, nil, err
		}
	}
	return &slim, m, out.Commit()
}

// slimPoint is point p without its statistics, and without its time
// series past the first PlotCurvesMax points: what summaries, warnings
// and plots read, small enough to hold thousands of.
func slimPoint(p results.PointResult, i int) results.PointResult {
	p.Stats = nil
	if i >= results.PlotCurvesMax {
		p.Series = nil
	}
	return p
}

// writeMeta writes meta.json with stop reason stop (m: the figures known
// so far; nil at the start).
func (c *sweepCmd) writeMeta(dir, stop string, started time.Time, m *results.SweepMeta) error {
	if m == nil {
		m = &results.SweepMeta{}
	}
	m.Meta = results.NewMeta(version, c.lf, c.args, started)
	m.Jobs, m.Partial, m.StopReason = c.jobs, stop != "complete", stop
	m.Sets = c.sets
	if c.shards > 1 {
		m.Shard = fmt.Sprintf("%d/%d", c.shard, c.shards)
	}
	m.WallSeconds = time.Since(started).Seconds()
	m.PeakResidentBytes = results.PeakResidentBytes()
	if err := results.WriteJSON(filepath.Join(dir, results.MetaJSON), m); err != nil {
		return fmt.Errorf("writing %s: %v", dir, err)
	}
	return nil
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
