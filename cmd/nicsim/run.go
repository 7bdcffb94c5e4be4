package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pkg/profile"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/scenario"
	"github.com/nicsim/nicsim/workloads/traffic"
)

func init() {
	register("run", "run workload files: summary table, results in an output folder", runRun)
}

// interruptSource returns a poll function that reports Ctrl-C and a stop
// function; tests replace it.
var interruptSource = func() (poll func() bool, stop func()) {
	var hit atomic.Bool
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			hit.Store(true)
		case <-done:
		}
	}()
	return hit.Load, func() { signal.Stop(ch); close(done) }
}

const runUsage = "[--out DIR] [--seed N] [--set key=value]... [--trace FILE] [--profile cpu|mem] [--quiet] FILE..."

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", runUsage, stderr)
	out := fs.String("out", "", "output folder (default results/runs/<file-stem>-<seed>; with several files, the parent of one folder per file)")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed (0..2^64-1)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a key before validation, as path=value (repeatable), e.g. --set adapter.pcie.lanes=16")
	trace := fs.String("trace", "", "write a Perfetto/Chrome trace of the first file's first point to FILE")
	prof := fs.String("profile", "", "profile nicsim itself: cpu or mem (written into the output folder)")
	quiet := fs.Bool("quiet", false, "do not print the summary table")
	usageTail(fs, stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "nicsim run: no workload file given")
		fs.Usage()
		return exitUsage
	}
	var seed *uint64
	if *seedStr != "" {
		v, err := strconv.ParseUint(*seedStr, 0, 64)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim run: --seed %q is not a whole number in 0..2^64-1\n", *seedStr)
			return exitUsage
		}
		seed = &v
	}
	if *prof != "" && *prof != "cpu" && *prof != "mem" {
		fmt.Fprintf(stderr, "nicsim run: --profile %q must be cpu or mem\n", *prof)
		return exitUsage
	}
	// Load every file first: nothing runs if any file is invalid.
	opts := workloads.Options{Sets: sets, Seed: seed}
	loaded := make([]*workloads.File, len(files))
	bad := false
	for i, f := range files {
		if scenario.IsFile(f) {
			if len(files) > 1 || len(sets) > 0 || seed != nil {
				fmt.Fprintf(stderr, "nicsim run: %s is a scenario: run it alone, without --set or --seed\n", f)
				return exitUsage
			}
			return runScenario(f, stdout, stderr)
		}
		lf, err := workloads.Load(f, opts)
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad = true
			continue
		}
		loaded[i] = lf
	}
	if bad {
		fmt.Fprintln(stderr, "nicsim run: invalid workload file; nothing was run")
		return exitFailed
	}
	dirs := make([]string, len(files))
	for i, lf := range loaded {
		leaf := fmt.Sprintf("%s-%d", lf.Stem, lf.Points[0].Run.Seed)
		switch {
		case *out == "":
			dirs[i] = filepath.Join("results", "runs", leaf)
		case len(files) == 1:
			dirs[i] = *out
		default:
			dirs[i] = filepath.Join(*out, leaf)
		}
	}
	var profPath string
	if *prof != "" {
		if err := os.MkdirAll(dirs[0], 0o755); err != nil {
			fmt.Fprintf(stderr, "nicsim run: %v\n", err)
			return exitFailed
		}
		mode := profile.CPUProfile
		profPath = filepath.Join(dirs[0], "cpu.pprof")
		if *prof == "mem" {
			mode, profPath = profile.MemProfile, filepath.Join(dirs[0], "mem.pprof")
		}
		defer profile.Start(mode, profile.ProfilePath(dirs[0]), profile.Quiet, profile.NoShutdownHook).Stop()
	}
	poll, stopSignals := interruptSource()
	defer stopSignals()
	for i, lf := range loaded {
		code := runOne(files[i], lf, dirs[i], sets, *trace, i == 0, profPath, *quiet, poll, args, stdout, stderr)
		if code != exitOK {
			return code
		}
	}
	return exitOK
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

// runOne runs one loaded file and writes its output folder.
func runOne(file string, lf *workloads.File, dir string, sets []string, tracePath string, first bool, profPath string,
	quiet bool, poll func() bool, args []string, stdout, stderr io.Writer) int {
	started := time.Now()
	pb := newProgress(stderr, lf.Stem)
	ro := traffic.RunOptions{Interrupted: poll, Progress: pb.set}
	var ct *sim.ChromeTrace
	var tf *os.File
	if tracePath != "" && first {
		var err error
		if tf, err = os.Create(tracePath); err != nil {
			fmt.Fprintf(stderr, "nicsim run: --trace: %v\n", err)
			return exitFailed
		}
		ct = sim.NewChromeTrace(tf)
		ro.Tracer = ct
	}
	res, err := traffic.RunFile(lf, ro)
	pb.finish()
	if ct != nil {
		cerr := ct.Close()
		if err2 := tf.Close(); cerr == nil {
			cerr = err2
		}
		if cerr != nil {
			fmt.Fprintf(stderr, "nicsim run: trace %s: %v\n", tracePath, cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim run: %s: %v\n", file, err)
		return exitFailed
	}
	w0 := lf.Points[0]
	stop := res.Points[len(res.Points)-1].StopReason
	cfg := config{Workload: w0.Name, Seed: w0.Run.Seed, Sets: sets, Sweep: lf.Sweep, Points: lf.Points,
		Kinds: workloads.KindNames(), Presets: workloads.PresetNames()}
	if len(lf.Sweep) > 0 {
		for _, p := range lf.Points {
			cfg.Labels = append(cfg.Labels, workloads.Label(p.Point))
		}
	}
	m := meta{Version: version, File: file, Args: args, Seed: w0.Run.Seed, Partial: res.Partial, StopReason: stop,
		StartedAt: started.UTC().Format(time.RFC3339), WallSeconds: time.Since(started).Seconds()}
	if first {
		m.Trace, m.Profile = tracePath, profPath
	}
	if err := writeOutputs(dir, res, cfg, m); err != nil {
		fmt.Fprintf(stderr, "nicsim run: writing %s: %v\n", dir, err)
		return exitFailed
	}
	printWarnings(stderr, "run", res)
	if !quiet {
		printSummary(stdout, file, lf, res)
		fmt.Fprintf(stdout, "results: %s\n", dir)
		if ct != nil {
			fmt.Fprintf(stdout, "trace: %s (%d spans; open in ui.perfetto.dev)\n", tracePath, ct.Events())
		}
	}
	if stop == "interrupted" {
		fmt.Fprintf(stderr, "nicsim run: interrupted; partial results written to %s\n", dir)
		return exitInterrupted
	}
	if res.Partial {
		fmt.Fprintf(stderr, "nicsim run: %s: stopped at sim_time_max_us before every generator finished; results marked partial\n", file)
	}
	return exitOK
}
