package traffic

import "github.com/nicsim/nicsim/sim"

// A point runs in slices of simulated time. Between two slices it checks
// for a failure, for the end of its operations and for an interrupt, and
// reports its progress; nothing between slices schedules an event, so
// where the slices end changes no result.
//
// A slice costs about 80 ns of wall time besides its events. The first is
// SliceFirst long (a hundredth of the run when that is shorter). A load
// whose events are sparse, a registration that waits tens of
// microseconds for the firmware, would otherwise spend a fifth of its wall
// time between slices; so a slice that ran fewer than sliceEventsGrow
// events is followed by one twice as long, up to SliceMax, and one that
// ran more than sliceEventsShrink by one half as long, down to the first
// slice's length. The lengths follow the events, not the wall clock: the
// same workload and seed slice the same way every time.
const (
	// SliceFirst bounds the first slice of a point's run.
	SliceFirst = 10 * sim.US
	// SliceMax bounds every slice: a slice of a sparse load grows to it.
	SliceMax = sim.MS
	// sliceEventsGrow: a slice that ran fewer events is followed by one
	// twice as long. 1,024 events take 60 to 150 µs of wall time.
	sliceEventsGrow = 1 << 10
	// sliceEventsShrink: a slice that ran more events is followed by one
	// half as long. 16,384 events take 1 to 2.5 ms of wall time, so that
	// a dense load still checks for an interrupt that often.
	sliceEventsShrink = 1 << 14
)

// slicer chooses the length of each slice of one point's run.
type slicer struct {
	len, min sim.Tick
	fixed    bool // a traced run samples its counters at every slice's end
}

// newSlicer starts at the first slice for a run that ends at end; a traced
// run's slices are its sampling interval every, all alike (every > 0).
func newSlicer(end, every sim.Tick) slicer {
	first := min(SliceFirst, max(end/100, sim.NS))
	if every > 0 {
		return slicer{len: min(first, every), min: min(first, every), fixed: true}
	}
	return slicer{len: first, min: first}
}

// ran sets the next slice's length from the events the last one ran.
func (s *slicer) ran(events uint64) {
	switch {
	case s.fixed:
	case events < sliceEventsGrow:
		s.len = min(2*s.len, SliceMax)
	case events > sliceEventsShrink:
		s.len = max(s.len/2, s.min)
	}
}
