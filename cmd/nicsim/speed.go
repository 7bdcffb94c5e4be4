package main

import (
	"fmt"
	"io"

	"github.com/nicsim/nicsim/results"
)

// printSpeed prints the simulator's own figures for a run, as meta.json
// has them: its wall time (from the start of the run to its results), the
// engine events of every point, the wall nanoseconds per work request
// completed in the measured windows (docs/kernel.md, "Speed") and the
// process's peak resident memory (where the system reports it).
func printSpeed(w io.Writer, res *results.Result, m results.Meta) {
	var events, reqs uint64
	for i := range res.Points {
		events += res.Points[i].Events
		reqs += res.Points[i].WorkRequests()
	}
	fmt.Fprintf(w, "simulator: %.2f s wall, %d events", m.WallSeconds, events)
	if reqs > 0 {
		fmt.Fprintf(w, ", %.0f ns wall per work request", m.WallSeconds*1e9/float64(reqs))
	}
	if m.PeakResidentBytes > 0 {
		fmt.Fprintf(w, ", %.0f MiB peak resident", float64(m.PeakResidentBytes)/(1<<20))
	}
	fmt.Fprintln(w)
}
