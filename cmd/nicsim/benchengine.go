package main

import (
	"fmt"
	"io"
	"time"

	"github.com/nicsim/nicsim/sim"
)

func runBenchEngine(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench-engine", "[-n N] [-m M] [-events E] [-seed S]", stderr)
	n := fs.Int("n", 1000, "logical processes (1..1000000)")
	m := fs.Int("m", 10, "initial events per process (1..10000)")
	events := fs.Uint64("events", 10_000_000, "events to handle after warm-up (1..10^10)")
	seed := fs.Uint64("seed", 1, "random seed")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if !noArgs("bench-engine", fs.Args(), stderr) {
		return exitUsage
	}
	switch {
	case *n < 1 || *n > 1_000_000:
		fmt.Fprintf(stderr, "nicsim bench-engine: -n %d is out of range 1..1000000\n", *n)
		return 2
	case *m < 1 || *m > 10_000:
		fmt.Fprintf(stderr, "nicsim bench-engine: -m %d is out of range 1..10000\n", *m)
		return 2
	case *events < 1 || *events > 10_000_000_000:
		fmt.Fprintf(stderr, "nicsim bench-engine: -events %d is out of range 1..10^10\n", *events)
		return 2
	}
	p, err := sim.NewPHOLD(*n, *m, sim.US, *seed)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim bench-engine: %v\n", err)
		return 2
	}
	warm := uint64(*n) * uint64(*m) * 2
	p.Run(warm)
	start := time.Now()
	got := p.Run(*events)
	el := time.Since(start)
	rate := float64(got) / el.Seconds()
	fmt.Fprintf(stdout, "PHOLD N=%d M=%d mean=1us seed=%d\n", *n, *m, *seed)
	fmt.Fprintf(stdout, "  warm-up events   %d\n", warm)
	fmt.Fprintf(stdout, "  measured events  %d\n", got)
	fmt.Fprintf(stdout, "  wall time        %.3f s\n", el.Seconds())
	fmt.Fprintf(stdout, "  simulated time   %v\n", p.Engine().Now())
	fmt.Fprintf(stdout, "  events/s         %.0f\n", rate)
	fmt.Fprintf(stdout, "  ns/event         %.1f\n", 1e9/rate)
	return 0
}
