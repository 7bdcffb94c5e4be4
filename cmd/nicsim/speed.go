package main

import (
	"fmt"
	"io"

	"github.com/nicsim/nicsim/results"
)

// speed counts the engine events and the work requests completed in the
// measured windows (results.PointResult.WorkRequests) of the points a
// process ran: the simulator's own figures, which its summary ends with.
type speed struct {
	points        int
	events, reqs  uint64
	wallS         float64 // from the start of the run to its results
	peakResidentB uint64  // the process's, 0 where the system does not say
}

func (s *speed) add(p *results.PointResult) {
	s.points++
	s.events += p.Events
	s.reqs += p.WorkRequests()
}

// print writes the line `simulator: X s wall, N events, Y ns wall per work
// request, Z MiB peak resident`, then what follows (a sweep says which
// points and how many jobs).
func (s *speed) print(w io.Writer, tail string) {
	fmt.Fprintf(w, "simulator: %.2f s wall, %d events", s.wallS, s.events)
	if s.reqs > 0 {
		fmt.Fprintf(w, ", %.0f ns wall per work request", s.wallS*1e9/float64(s.reqs))
	}
	if s.peakResidentB > 0 {
		fmt.Fprintf(w, ", %.0f MiB peak resident", float64(s.peakResidentB)/(1<<20))
	}
	fmt.Fprintf(w, "%s\n", tail)
}

// printSpeed prints the simulator's own figures for a run, as meta.json
// has them: its wall time, the engine events of every point, the wall
// nanoseconds per work request (docs/kernel.md, "Speed") and the process's
// peak resident memory.
func printSpeed(w io.Writer, res *results.Result, m results.Meta) {
	s := speed{wallS: m.WallSeconds, peakResidentB: m.PeakResidentBytes}
	for i := range res.Points {
		s.add(&res.Points[i])
	}
	s.print(w, "")
}

// printSweepSpeed prints the figures of the points a sweep ran itself,
// not those a resumed sweep took from an earlier process, over its wall
// time with up to jobs points at once; nothing when it ran none.
func printSweepSpeed(w io.Writer, s speed, m *results.SweepMeta, jobs int) {
	if s.points == 0 {
		return
	}
	s.wallS, s.peakResidentB = m.WallSeconds, m.PeakResidentBytes
	s.print(w, sweepSpeedTail(s.points, jobs))
}

// sweepSpeedTail says which points the figures count and how many ran at
// once: never more than there were.
func sweepSpeedTail(points, jobs int) string {
	if points == 1 {
		return " (the 1 point run now)"
	}
	return fmt.Sprintf(" (the %d points run now, %d at once)", points, min(jobs, points))
}
