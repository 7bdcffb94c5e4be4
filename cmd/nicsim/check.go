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
	if opts.Seed, ok = parseSeed("check", *seedStr, stderr); !ok {
		return exitUsage
	}
	bad := 0
	for _, f := range files {
		in, err := readInput(f)
		switch {
		case err != nil:
			fmt.Fprintln(stderr, err)
			bad++
		case in.scenario:
			if !checkScenario(in, stdout, stderr) {
				bad++
			}
		case !checkWorkload(in, opts, stdout, stderr):
			bad++
		}
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "nicsim check: %d of %d files invalid\n", bad, len(files))
		return exitFailed
	}
	return exitOK
}

// checkWorkload validates a workload file without running it: its
// problems on stderr, or one line on stdout naming what it holds.
func checkWorkload(in *input, opts workloads.Options, stdout, stderr io.Writer) bool {
	file := in.path
	lf, err := in.load(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return false
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
	return true
}
