package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

// regressCmd is one `nicsim regress`: its flags.
type regressCmd struct {
	dir        string
	jobs       int
	update     bool
	report     bool
	adds       multiFlag
	thresholds map[string]float64
	stdout     io.Writer
	stderr     io.Writer
}

func runRegress(args []string, stdout, stderr io.Writer) int {
	c := &regressCmd{stdout: stdout, stderr: stderr}
	if code, ok := c.parse(args); !ok {
		return code
	}
	if len(c.adds) > 0 {
		return c.add()
	}
	names, err := results.ListBaselines(c.dir)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim regress: %v\n", err)
		return exitFailed
	}
	failed := 0
	for _, n := range names {
		bdir := filepath.Join(c.dir, n)
		b, err := results.ReadBaseline(bdir)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim regress: %v\n", err)
			failed++
			continue
		}
		if c.update {
			if code := c.makeBaseline(bdir, b); code != exitOK {
				return code
			}
			continue
		}
		if !c.check(n, bdir, b) {
			failed++
		}
	}
	if c.update {
		return exitOK
	}
	if c.report {
		return c.reported(failed, len(names))
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "nicsim regress: %d of %d baselines regressed or failed; if the change is intended, run 'make baselines' and commit results/baselines\n", failed, len(names))
		return exitFailed
	}
	fmt.Fprintf(stdout, "all %d baselines reproduce within their thresholds\n", len(names))
	return exitOK
}

// parse parses the flags; false when the command stops (help or a usage
// error, with its exit code).
func (c *regressCmd) parse(args []string) (int, bool) {
	fs := newFlagSet("regress", "[--dir results/baselines] [--jobs N] [--threshold metric=pct]... [--report | --update | --add FILE...]", c.stderr)
	fs.StringVar(&c.dir, "dir", filepath.Join("results", "baselines"), "folder of baselines, one sub-folder each")
	fs.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "points run at once (1..1024)")
	fs.BoolVar(&c.update, "update", false, "rewrite every baseline from the current model instead of comparing")
	fs.BoolVar(&c.report, "report", false, "list every figure that changed and exit 0 unless a baseline cannot be rerun: a report, not a check")
	fs.Var(&c.adds, "add", "create (or replace) the baseline of this workload file, then stop (repeatable)")
	var ths multiFlag
	fs.Var(&ths, "threshold", "accepted relative change of a metric in percent, e.g. latency_ns_p99=10 (repeatable)")
	rest, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code, false
	}
	if !noArgs("regress", rest, c.stderr) || !c.oneMode() {
		return exitUsage, false
	}
	writes := c.update || len(c.adds) > 0
	if writes && refuseCheckBuildWrite(c.stderr, "regress", "baselines") {
		return exitUsage, false
	}
	if c.jobs < 1 || c.jobs > 1024 {
		fmt.Fprintf(c.stderr, "nicsim regress: --jobs %d is out of range 1..1024\n", c.jobs)
		return exitUsage, false
	}
	if c.thresholds, ok = parseThresholds("regress", ths, c.stderr); !ok {
		return exitUsage, false
	}
	return exitOK, true
}

// oneMode refuses two of the modes --report, --update and --add: each is
// a command of its own (compare all, rewrite all, create the files').
func (c *regressCmd) oneMode() bool {
	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{c.report, "--report"}, {c.update, "--update"}, {len(c.adds) > 0, "--add"}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	if len(modes) > 1 {
		fmt.Fprintf(c.stderr, "nicsim regress: %s: give only one of --report (compare every baseline), --update (rewrite every baseline) and --add FILE (create the baselines of the files given)\n", strings.Join(modes, " with "))
		return false
	}
	return true
}

// add creates (or replaces) the baseline of each --add file, named by the
// file's stem.
func (c *regressCmd) add() int {
	for _, f := range c.adds {
		lf, err := workloads.Load(f, workloads.Options{})
		if err != nil {
			fmt.Fprintln(c.stderr, err)
			return exitFailed
		}
		b := results.Baseline{File: filepath.ToSlash(f), Seed: lf.Points[0].Run.Seed}
		if code := c.makeBaseline(filepath.Join(c.dir, lf.Stem), b); code != exitOK {
			return code
		}
	}
	return exitOK
}

// check reruns the baseline in bdir and prints how it compares; false when
// it regressed or could not be rerun.
func (c *regressCmd) check(name, bdir string, b results.Baseline) bool {
	res, code := c.rerun(b)
	if code != exitOK {
		return false
	}
	base, err := results.ReadResult(bdir)
	if err != nil {
		fmt.Fprintf(c.stderr, "nicsim regress: %v\n", err)
		return false
	}
	cmp, err := results.CompareResults(base, res, c.thresholds)
	if err != nil {
		fmt.Fprintf(c.stderr, "nicsim regress: %s: %v\n", name, err)
		return false
	}
	verdict := "ok"
	if cmp.Regressed() {
		verdict = "REGRESSION"
	}
	fmt.Fprintf(c.stdout, "%-32s %-10s %d regression(s), %d missing, %d improved\n", name, verdict, cmp.Regressions, cmp.Missing, cmp.Improved)
	if cmp.Regressed() || cmp.Improved > 0 || c.report && changed(cmp) {
		printComparison(c.stdout, cmp, false)
	}
	return c.report || !cmp.Regressed()
}

// changed reports whether any figure of cmp moved at all.
func changed(cmp *results.Comparison) bool {
	for _, ch := range cmp.Changes {
		if ch.ChangePct != 0 || ch.Verdict == results.Missing || ch.Verdict == results.Added {
			return true
		}
	}
	return false
}

// reported ends a --report run: it fails only when a baseline could not be
// rerun (failed of n).
func (c *regressCmd) reported(failed, n int) int {
	if failed > 0 {
		fmt.Fprintf(c.stderr, "nicsim regress: %d of %d baselines could not be rerun\n", failed, n)
		return exitFailed
	}
	fmt.Fprintf(c.stdout, "listed every figure that changed in the %d baselines\n", n)
	return exitOK
}

// rerun runs a baseline's workload file with its seed and overrides.
func (c *regressCmd) rerun(b results.Baseline) (*results.Result, int) {
	seed := b.Seed
	lf, err := workloads.Load(filepath.FromSlash(b.File), workloads.Options{Sets: b.Sets, Seed: &seed})
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return nil, exitFailed
	}
	res, err := traffic.RunSweep(lf, traffic.SweepOptions{Jobs: c.jobs})
	if err != nil {
		fmt.Fprintf(c.stderr, "nicsim regress: %s: %v\n", b.File, err)
		return nil, exitFailed
	}
	return res, exitOK
}

// makeBaseline runs b's workload and writes it as the baseline in bdir.
func (c *regressCmd) makeBaseline(bdir string, b results.Baseline) int {
	res, code := c.rerun(b)
	if code != exitOK {
		return code
	}
	b.Version = version
	if err := results.WriteBaseline(bdir, b, res); err != nil {
		fmt.Fprintf(c.stderr, "nicsim regress: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(c.stdout, "baseline %s <- %s (seed %d%s)\n", bdir, b.File, b.Seed, strings.Join(append([]string{""}, b.Sets...), ", --set "))
	return exitOK
}
