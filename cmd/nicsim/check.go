package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nicsim/nicsim/workloads"
)

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "[--set key=value]... [--seed N] FILE...", stderr)
	var sets multiFlag
	fs.Var(&sets, "set", "override a key before validation, as path=value (repeatable)")
	seedStr := fs.String("seed", "", "random seed, replacing run.seed")
	usageTail(fs, stderr)
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "nicsim check: no workload file given")
		fs.Usage()
		return exitUsage
	}
	opts := workloads.Options{Sets: sets}
	if opts.Seed, ok = parseSeed("check", *seedStr, stderr); !ok || !checkSets("check", sets, stderr) {
		return exitUsage
	}
	bad, code := 0, exitOK
	for _, f := range files {
		if c := checkFile(f, opts, stdout, stderr); c != exitOK {
			bad, code = bad+1, max(code, c)
		}
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "nicsim check: %d of %d files invalid\n", bad, len(files))
		if code == exitUsage {
			fmt.Fprintln(stderr, "nicsim check: the fault is in the flags given (see above): exit 2")
		}
	}
	return code
}

// checkFile checks one file: exit 0 when valid, 1 when invalid, 2 when a
// --set override is at fault (loadFailure).
func checkFile(f string, opts workloads.Options, stdout, stderr io.Writer) int {
	in, err := readInput(f)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, err)
		return exitFailed
	case in.scenario && (len(opts.Sets) > 0 || opts.Seed != nil):
		fmt.Fprintf(stderr, "nicsim check: %s is a scenario: --set and --seed do not apply to it\n", f)
		return exitUsage
	case in.scenario:
		if !checkScenario(in, stdout, stderr) {
			return exitFailed
		}
		return exitOK
	}
	return checkWorkload(in, opts, stdout, stderr)
}

// checkWorkload validates a workload file without running it: its
// problems on stderr, or one line on stdout naming what it holds; it
// returns the exit code (checkFile).
func checkWorkload(in *input, opts workloads.Options, stdout, stderr io.Writer) int {
	file := in.path
	lf, err := in.load(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return loadFailure(err)
	}
	w := lf.Points[0]
	gens := make([]string, len(w.Generators))
	for i, g := range w.Generators {
		gens[i] = g.Name + " (" + g.Kind + ")"
	}
	pts := ""
	if len(lf.Points) > 1 {
		pts = fmt.Sprintf(", %d sweep points", len(lf.Points))
	}
	fmt.Fprintf(stdout, "%s: ok: workload %q, adapter %s, seed %d%s; generators: %s; memory estimate %s of %s\n",
		file, w.Name, w.Adapter.Preset, w.Run.Seed, pts, strings.Join(gens, ", "), workloads.Bytes(lf.MemoryEstimate()), workloads.Bytes(w.Run.MemoryMaxBytes))
	return exitOK
}
