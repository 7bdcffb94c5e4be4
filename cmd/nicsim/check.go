package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/scenario"
)

func init() {
	register("check", "validate workload files without running them", runCheck)
}

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
	if *seedStr != "" {
		v, err := strconv.ParseUint(*seedStr, 0, 64)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim check: --seed %q is not a whole number in 0..2^64-1\n", *seedStr)
			return exitUsage
		}
		opts.Seed = &v
	}
	bad := 0
	for _, f := range files {
		if scenario.IsFile(f) {
			if !checkScenario(f, stdout, stderr) {
				bad++
			}
			continue
		}
		lf, err := workloads.Load(f, opts)
		if err != nil {
			bad++
			fmt.Fprintln(stderr, err)
			continue
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
		fmt.Fprintf(stdout, "%s: ok: workload %q, adapter %s, seed %d%s; generators: %s\n",
			f, w.Name, w.Adapter.Preset, w.Run.Seed, pts, strings.Join(gens, ", "))
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "nicsim check: %d of %d files invalid\n", bad, len(files))
		return exitFailed
	}
	return exitOK
}
