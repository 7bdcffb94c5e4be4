package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/nicsim/nicsim/workloads/scenario"
)

// runScenario runs one scenario file: one JSON line per call, callback and
// completion on stdout; the first failed expectation on stderr, exit 1.
func runScenario(in *input, stdout, stderr io.Writer) int {
	file := in.path
	s, err := in.loadScenario()
	if err != nil {
		fmt.Fprintln(stderr, err)
		fmt.Fprintln(stderr, "nicsim run: invalid scenario file; nothing was run")
		return exitFailed
	}
	if err := s.Run(stdout); err != nil {
		var f *scenario.Failure
		if errors.As(err, &f) {
			fmt.Fprintf(stderr, "nicsim run: scenario %q: %v\n", s.Name, f)
		} else {
			fmt.Fprintf(stderr, "nicsim run: %s: %v\n", file, err)
		}
		return exitFailed
	}
	fmt.Fprintf(stderr, "nicsim run: scenario %q: %d steps passed\n", s.Name, len(s.Steps))
	return exitOK
}

// checkScenario validates a scenario file without running it.
func checkScenario(in *input, stdout, stderr io.Writer) bool {
	file := in.path
	s, err := in.loadScenario()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return false
	}
	fmt.Fprintf(stdout, "%s: ok: scenario %q, %d hosts, %d steps\n", file, s.Name, len(s.Hosts), len(s.Steps))
	return true
}
