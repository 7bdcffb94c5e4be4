package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/traffic"
)

func init() {
	register("regress", "rerun the committed baselines and compare; exit 1 on a regression", runRegress)
}

// baselineManifest is baseline.json: what a baseline was made from, so it
// can be remade and rerun exactly.
type baselineManifest struct {
	File    string   `json:"file"` // workload file, relative to the repository root
	Seed    uint64   `json:"seed"`
	Sets    []string `json:"sets,omitempty"`
	Version string   `json:"nicsim_version"`
}

// BaselinesMax bounds how many baselines one regress run reads.
const baselinesMax = 256

func runRegress(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("regress", "[--dir results/baselines] [--jobs N] [--threshold metric=pct]... [--update] [--add FILE]...", stderr)
	dir := fs.String("dir", filepath.Join("results", "baselines"), "folder of baselines, one sub-folder each")
	jobs := fs.Int("jobs", runtime.NumCPU(), "points run at once (1..1024)")
	update := fs.Bool("update", false, "rewrite every baseline from the current model instead of comparing")
	var adds multiFlag
	fs.Var(&adds, "add", "create (or replace) the baseline of this workload file, then stop (repeatable)")
	var ths multiFlag
	fs.Var(&ths, "threshold", "accepted relative change of a metric in percent, e.g. latency_ns_p99=10 (repeatable)")
	rest, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "nicsim regress: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if *jobs < 1 || *jobs > 1024 {
		fmt.Fprintf(stderr, "nicsim regress: --jobs %d is out of range 1..1024\n", *jobs)
		return exitUsage
	}
	thresholds := map[string]float64{}
	for _, t := range ths {
		name, v, err := results.ParseThreshold(t)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim regress: --%v\n", err)
			return exitUsage
		}
		thresholds[name] = v
	}
	if len(adds) > 0 {
		for _, f := range adds {
			lf, err := workloads.Load(f, workloads.Options{})
			if err != nil {
				fmt.Fprintln(stderr, err)
				return exitFailed
			}
			m := baselineManifest{File: filepath.ToSlash(f), Seed: lf.Points[0].Run.Seed}
			if code := makeBaseline(filepath.Join(*dir, lf.Stem), m, *jobs, stdout, stderr); code != exitOK {
				return code
			}
		}
		return exitOK
	}
	entries, err := os.ReadDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim regress: %v\n", err)
		return exitFailed
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintf(stderr, "nicsim regress: no baselines in %s (create them with --add FILE)\n", *dir)
		return exitFailed
	}
	if len(names) > baselinesMax {
		fmt.Fprintf(stderr, "nicsim regress: %d baselines in %s, above the limit of %d\n", len(names), *dir, baselinesMax)
		return exitFailed
	}
	failed := 0
	for _, n := range names {
		bdir := filepath.Join(*dir, n)
		var m baselineManifest
		b, err := os.ReadFile(filepath.Join(bdir, "baseline.json"))
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil || m.File == "" {
			fmt.Fprintf(stderr, "nicsim regress: %s: missing or bad baseline.json: %v\n", bdir, err)
			failed++
			continue
		}
		if *update {
			if code := makeBaseline(bdir, m, *jobs, stdout, stderr); code != exitOK {
				return code
			}
			continue
		}
		res, code := runBaselineWorkload(m, *jobs, stderr)
		if code != exitOK {
			failed++
			continue
		}
		base, err := results.ReadResult(bdir)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim regress: %v\n", err)
			failed++
			continue
		}
		cmp, err := results.CompareResults(base, res, thresholds)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim regress: %s: %v\n", n, err)
			failed++
			continue
		}
		verdict := "ok"
		if cmp.Regressed() {
			verdict = "REGRESSION"
			failed++
		}
		fmt.Fprintf(stdout, "%-32s %-10s %d regression(s), %d missing, %d improved\n", n, verdict, cmp.Regressions, cmp.Missing, cmp.Improved)
		if cmp.Regressed() || cmp.Improved > 0 {
			printComparison(stdout, cmp, false)
		}
	}
	if *update {
		return exitOK
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "nicsim regress: %d of %d baselines regressed or failed; if the change is intended, run 'make baselines' and commit results/baselines\n", failed, len(names))
		return exitFailed
	}
	fmt.Fprintf(stdout, "all %d baselines reproduce within their thresholds\n", len(names))
	return exitOK
}

func runBaselineWorkload(m baselineManifest, jobs int, stderr io.Writer) (*results.Result, int) {
	seed := m.Seed
	lf, err := workloads.Load(filepath.FromSlash(m.File), workloads.Options{Sets: m.Sets, Seed: &seed})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitFailed
	}
	res, err := traffic.RunSweep(lf, traffic.SweepOptions{Jobs: jobs})
	if err != nil {
		fmt.Fprintf(stderr, "nicsim regress: %s: %v\n", m.File, err)
		return nil, exitFailed
	}
	return res, exitOK
}

func makeBaseline(bdir string, m baselineManifest, jobs int, stdout, stderr io.Writer) int {
	res, code := runBaselineWorkload(m, jobs, stderr)
	if code != exitOK {
		return code
	}
	if res.Partial {
		fmt.Fprintf(stderr, "nicsim regress: %s: the run is partial; a baseline must be complete\n", m.File)
		return exitFailed
	}
	if err := os.MkdirAll(bdir, 0o755); err != nil {
		fmt.Fprintf(stderr, "nicsim regress: %v\n", err)
		return exitFailed
	}
	b, err := resultsJSON(res)
	if err == nil {
		err = os.WriteFile(filepath.Join(bdir, "results.json"), b, 0o644)
	}
	if err == nil {
		m.Version = version
		err = writeJSON(filepath.Join(bdir, "baseline.json"), m)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim regress: %s: %v\n", bdir, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "baseline %s <- %s (seed %d%s)\n", bdir, m.File, m.Seed, strings.Join(append([]string{""}, m.Sets...), ", --set "))
	return exitOK
}
