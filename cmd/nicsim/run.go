package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pkg/profile"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

const runUsage = "[--out DIR] [--force] [--seed N] [--set key=value]... [--trace FILE] [--profile cpu|mem] [--no-plots] [--quiet] FILE..."

// runCmd is one `nicsim run`: its flags and files.
type runCmd struct {
	args     []string // the command line, for meta.json
	out      string
	sets     multiFlag
	seed     *uint64
	trace    string
	traceNew bool // no file was at trace before the run (checkTrace)
	prof     string
	quiet    bool
	noPlot   bool
	force    bool
	files    []string
	stdout   io.Writer
	stderr   io.Writer
}

func runRun(args []string, stdout, stderr io.Writer) int {
	results.PrefetchJSON() // the result files' types, analysed beside the run
	c := &runCmd{args: args, stdout: stdout, stderr: stderr}
	if code, ok := c.parse(args); !ok {
		return code
	}
	loaded, code, ok := c.load()
	if !ok {
		return code
	}
	results.PrefetchProvenance() // for meta.json: git, if asked, runs beside the simulation
	outs, code, ok := c.stage(loaded)
	if !ok {
		return code
	}
	defer abortOuts(outs) // no-op for the folders committed
	prof, err := startProfile(c.prof, outs[0])
	if err != nil {
		fmt.Fprintf(stderr, "nicsim run: %v\n", err)
		return exitFailed
	}
	defer prof.stop()
	poll, stopSignals := interruptSource()
	defer stopSignals()
	for i, lf := range loaded {
		job := runJob{file: c.files[i], lf: lf, out: outs[i], poll: poll}
		if i == 0 {
			job.trace, job.prof = c.trace, prof
		}
		if code := c.runOne(&job); code != exitOK {
			return code
		}
	}
	return exitOK
}

// stage checks the --trace path (checkTrace) and prepares every file's
// output folder (stageOuts) before anything runs.
func (c *runCmd) stage(loaded []*workloads.File) ([]*results.OutDir, int, bool) {
	dirs := c.dirs(loaded)
	if c.trace != "" {
		tc := checkTrace(c.trace, c.files, dirs, c.force)
		if tc.err != nil {
			fmt.Fprintf(c.stderr, "nicsim run: %v; nothing was run\n", tc.err)
			return nil, tc.code, false
		}
		c.traceNew = tc.new
	}
	cfgs := make([][]byte, len(loaded))
	for i, lf := range loaded {
		b, err := results.EncodeIndented(results.NewConfig(lf, c.sets))
		if err != nil {
			fmt.Fprintf(c.stderr, "nicsim run: %v\n", err)
			return nil, exitFailed, false
		}
		cfgs[i] = b
	}
	return stageOuts("run", c.files, dirs, cfgs, c.force, c.stderr)
}

// parse parses the flags; false when the command stops (help or a usage
// error, with its exit code).
func (c *runCmd) parse(args []string) (int, bool) {
	fs := newFlagSet("run", runUsage, c.stderr)
	fs.StringVar(&c.out, "out", "", "output folder (default results/runs/<file-stem>-<seed>-<config hash>; with several files, the parent of one folder per file)")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed (0..2^64-1)")
	fs.Var(&c.sets, "set", "override a key before validation, as path=value (repeatable), e.g. --set adapter.pcie.lanes=16")
	fs.StringVar(&c.trace, "trace", "", "write a Perfetto/Chrome trace of the first file's first point to FILE")
	fs.StringVar(&c.prof, "profile", "", "profile nicsim itself: cpu or mem (written into the output folder)")
	fs.BoolVar(&c.quiet, "quiet", false, "do not print the summary table")
	fs.BoolVar(&c.noPlot, "no-plots", false, "draw no time-series plots")
	fs.BoolVar(&c.force, "force", false, "replace an output folder that holds a run of another configuration, and an existing --trace file")
	usageTail(fs, c.stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code, false
	}
	if len(files) == 0 {
		fmt.Fprintln(c.stderr, "nicsim run: no workload file given")
		fs.Usage()
		return exitUsage, false
	}
	c.files = files
	if c.seed, ok = parseSeed("run", *seedStr, c.stderr); !ok || !checkSets("run", c.sets, c.stderr) {
		return exitUsage, false
	}
	if c.prof != "" && c.prof != "cpu" && c.prof != "mem" {
		fmt.Fprintf(c.stderr, "nicsim run: --profile %q must be cpu or mem\n", c.prof)
		return exitUsage, false
	}
	return exitOK, true
}

// load loads every file first: nothing runs if any file is invalid. A
// scenario file runs here, alone.
func (c *runCmd) load() ([]*workloads.File, int, bool) {
	opts := workloads.Options{Sets: c.sets, Seed: c.seed}
	loaded := make([]*workloads.File, len(c.files))
	code := exitOK
	for i, f := range c.files {
		in, err := readInput(f)
		if err != nil {
			fmt.Fprintln(c.stderr, err)
			code = max(code, exitFailed)
			continue
		}
		if in.scenario {
			if len(c.files) > 1 || len(c.sets) > 0 || c.seed != nil {
				fmt.Fprintf(c.stderr, "nicsim run: %s is a scenario: run it alone, without --set or --seed\n", f)
				return nil, exitUsage, false
			}
			return nil, runScenario(in, c.stdout, c.stderr), false
		}
		lf, err := in.load(opts)
		if err != nil {
			fmt.Fprintln(c.stderr, err)
			code = max(code, loadFailure(err))
			continue
		}
		loaded[i] = lf
	}
	if code != exitOK {
		fmt.Fprintln(c.stderr, loadFailureNote("run", code))
		return nil, code, false
	}
	return loaded, exitOK, true
}

// dirs are the output folders of the loaded files.
func (c *runCmd) dirs(loaded []*workloads.File) []string {
	dirs := make([]string, len(loaded))
	for i, lf := range loaded {
		leaf := defaultLeaf(lf)
		switch {
		case c.out == "":
			dirs[i] = filepath.Join("results", "runs", leaf)
		case len(loaded) == 1:
			dirs[i] = c.out
		default:
			dirs[i] = filepath.Join(c.out, leaf)
		}
	}
	return dirs
}

// defaultLeaf is the name of a loaded file's default output folder:
// <file-stem>-<seed>-<config hash>, so runs of one file with different
// --set overrides never share a folder; a check build's (-tags
// reverseties) ends in -reversed, so it never takes an ordinary run's.
func defaultLeaf(lf *workloads.File) string {
	leaf := fmt.Sprintf("%s-%d-%s", lf.Stem, lf.Points[0].Run.Seed, results.ConfigHash(lf)[:results.ConfigHashLen])
	if sim.SameTimeReversed {
		leaf += "-reversed"
	}
	return leaf
}

// profiler is nicsim's own profile (--profile), written into the first
// output folder; stop ends it once (before that folder is committed).
type profiler struct {
	path string // the profile's final path ("" without --profile)
	end  func()
}

func (p *profiler) stop() {
	if p.end != nil {
		p.end()
		p.end = nil
	}
}

// startProfile profiles nicsim itself (cpu or mem; "" none) into the
// output folder out.
func startProfile(kind string, out *results.OutDir) (*profiler, error) {
	if kind == "" {
		return &profiler{}, nil
	}
	mode, name := profile.CPUProfile, results.CPUProfile
	if kind == "mem" {
		mode, name = profile.MemProfile, results.MemProfile
	}
	p := profile.Start(mode, profile.ProfilePath(out.Tmp), profile.Quiet, profile.NoShutdownHook)
	return &profiler{path: filepath.Join(out.Dest, name), end: p.Stop}, nil
}

// usageTail adds the known kinds and presets to a command's -h output.
func usageTail(fs *flag.FlagSet, stderr io.Writer) {
	u := fs.Usage
	fs.Usage = func() {
		u()
		fmt.Fprintf(stderr, "\nOperation kinds: %s\nAdapter presets: %s (nicsim presets)\n"+
			"Keys, --set syntax, output folder and exit codes: docs/workloads.md\n",
			strings.Join(workloads.KindNames(), ", "), strings.Join(workloads.PresetNames(), ", "))
	}
}

// runJob is one loaded file to run into its output folder; the first file
// also writes the trace and the profile.
type runJob struct {
	file  string
	lf    *workloads.File
	out   *results.OutDir
	trace string
	prof  *profiler // nil but for the first file
	poll  func() bool
}

// runOne runs one loaded file and writes its output folder.
func (c *runCmd) runOne(j *runJob) int {
	started := time.Now()
	pb := newProgress(c.stderr, j.lf.Stem)
	ro := traffic.RunOptions{Interrupted: j.poll, Progress: pb.set}
	var ct *sim.ChromeTrace
	var tf *os.File
	if j.trace != "" {
		var err error
		if tf, err = openTrace(j.trace, c.traceNew); err != nil {
			fmt.Fprintf(c.stderr, "nicsim run: --trace: %v\n", err)
			return exitFailed
		}
		ct = sim.NewChromeTrace(tf)
		ro.Tracer = ct
	}
	res, err := traffic.RunFile(j.lf, ro)
	pb.finish()
	if ct != nil {
		cerr := ct.Close()
		if err2 := tf.Close(); cerr == nil {
			cerr = err2
		}
		if cerr != nil {
			fmt.Fprintf(c.stderr, "nicsim run: trace %s: %v\n", j.trace, cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "nicsim run: %s: %v\n", j.file, err)
		return exitFailed
	}
	stop := res.Points[len(res.Points)-1].StopReason
	m, err := c.write(j, res, stop, started)
	if err != nil {
		fmt.Fprintf(c.stderr, "nicsim run: writing %s: %v\n", j.out.Dest, err)
		return exitFailed
	}
	c.report(j, res, m, ct)
	if stop == "interrupted" {
		fmt.Fprintf(c.stderr, "nicsim run: interrupted by %s; partial results written to %s\n", signalName(), j.out.Dest)
		return interruptedExit()
	}
	if res.Partial {
		fmt.Fprintf(c.stderr, "nicsim run: %s: stopped at sim_time_max_us before every generator finished; results marked partial\n", j.file)
	}
	return exitOK
}

// write writes the job's output folder and puts it in place (the
// profile, written into it, ends first); it returns the folder's meta.json.
func (c *runCmd) write(j *runJob, res *results.Result, stop string, started time.Time) (results.Meta, error) {
	m := results.NewMeta(version, j.lf, c.args, started)
	m.Partial, m.StopReason, m.Trace = res.Partial, stop, j.trace
	if j.prof != nil {
		m.Profile = j.prof.path
	}
	m.WallSeconds = time.Since(started).Seconds()
	m.PeakResidentBytes = results.PeakResidentBytes()
	if err := results.WriteRun(j.out.Tmp, res, results.NewConfig(j.lf, c.sets), m); err != nil {
		return m, err
	}
	if !c.noPlot {
		if _, err := results.WriteTimeseriesPlots(j.out.Tmp, res); err != nil {
			return m, err
		}
	}
	if j.prof != nil {
		j.prof.stop()
	}
	return m, j.out.Commit()
}

// report prints a run's warnings, and unless quiet its summary, the
// simulator's own speed, output folder and trace.
func (c *runCmd) report(j *runJob, res *results.Result, m results.Meta, ct *sim.ChromeTrace) {
	printWarnings(c.stderr, "run", res)
	if c.quiet {
		return
	}
	printSummary(c.stdout, j.file, j.lf, res)
	printSpeed(c.stdout, res, m)
	fmt.Fprintf(c.stdout, "results: %s\n", j.out.Dest)
	if ct != nil {
		fmt.Fprintf(c.stdout, "trace: %s (%d records; open in ui.perfetto.dev, tracks in docs/trace.md)\n", j.trace, ct.Events())
	}
}
