package traffic

import (
	"strconv"
	"strings"

	"github.com/nicsim/nicsim/sim"
)

// traceSampler puts the model's counters into a trace as counter tracks,
// from generic sources so that no block needs tracing code of its own:
//
//   - every counter of the statistics registry, as its increase per
//     interval: per microsecond ("per_us": TLPs, cache hits and misses,
//     packets, bytes), or, for a counter in picoseconds, per picosecond
//     ("per_ps": a BusyPS is the busy fraction, a ResidencyPS the mean
//     occupancy of a pipeline stage, a StallPS the fraction stalled); a
//     counter named ...Max is a level and is shown as it is;
//   - every meter of env.Meters: its units in use ("in_use": tags,
//     credits, MSHRs, slots), sampled each interval, and after the run its
//     utilisation in each interval of the measured window ("utilisation").
//
// Samples are taken between slices of the run loop, never by events, so a
// traced run executes exactly the events of an untraced one. A track gets
// records only once its value has changed.
type traceSampler struct {
	tr     sim.Tracer
	every  sim.Tick
	t0     sim.Tick
	prev   sim.Tick
	ctrs   []sampledCounter
	meters []*sim.Meter
	levels []sampledLevel
}

type sampledCounter struct {
	ref   sim.CounterRef
	last  uint64
	shown float64
	any   bool
}

type sampledLevel struct {
	shown float64
	any   bool
}

// TraceSamplesMax is about how many samples a run's counter tracks get:
// the sampling interval is the run's length over it, at least TraceSampleMin.
const (
	TraceSamplesMax = 2000
	TraceSampleMin  = 100 * sim.NS
)

func newTraceSampler(tr sim.Tracer, m *Model, t0, end sim.Tick) *traceSampler {
	s := &traceSampler{tr: tr, every: max(TraceSampleMin, (end-t0)/TraceSamplesMax), t0: t0, prev: t0}
	for _, c := range m.Registry.Counters() {
		s.ctrs = append(s.ctrs, sampledCounter{ref: c, last: c.Value()})
	}
	s.meters = m.Env.Meters.List()
	s.levels = make([]sampledLevel, len(s.meters))
	return s
}

// traceGroups are the model's blocks, longest first: a counter's track
// belongs to the first whose name prefixes it.
var traceGroups = []string{BLinkName, BNICName + ".TPT", BNICName + ".Stage", BNICName, LinkName, TPTName, NICName + ".Stage", NICName, WireName}

func traceGroup(name string) string {
	for _, g := range traceGroups {
		if strings.HasPrefix(name, g+".") {
			return g
		}
	}
	if g, _, ok := strings.Cut(name, "."); ok {
		return g
	}
	return name
}

// sample records every counter's change over [prev, now).
func (s *traceSampler) sample(now sim.Tick) {
	if now <= s.prev {
		return
	}
	dt := float64(now - s.prev)
	for i := range s.ctrs {
		c := &s.ctrs[i]
		v := c.ref.Value()
		var shown float64
		unit := "per_us"
		switch {
		case strings.HasSuffix(c.ref.Name, "Max"):
			shown, unit = float64(v), c.ref.Unit
		case c.ref.Unit == "ps":
			shown, unit = float64(v-c.last)/dt, "per_ps"
		default:
			shown = float64(v-c.last) / dt * float64(sim.US)
		}
		c.last = v
		s.show(c.ref.Name, unit, &c.shown, &c.any, shown)
	}
	for i, m := range s.meters {
		s.show(m.Name(), "in_use", &s.levels[i].shown, &s.levels[i].any, float64(m.InUse()))
	}
	s.prev = now
}

// show records value at s.prev when it differs from what the track shows
// (a track's first record, at a value other than 0, starts with a 0 at the
// sampler's start).
func (s *traceSampler) show(name, unit string, shown *float64, any *bool, value float64) {
	if value == *shown {
		return
	}
	if !*any {
		*any = true
		if s.prev > s.t0 {
			s.tr.Counter(traceGroup(name), name, unit, s.t0, 0)
		}
	}
	s.tr.Counter(traceGroup(name), name, unit, s.prev, roundSig(value))
	*shown = value
}

// roundSig keeps 6 significant digits of a counter value.
func roundSig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

// finish records each meter's utilisation in every interval of the
// measured window, once the meters have closed it.
func (s *traceSampler) finish(ms *sim.Meters) {
	from, width, n := ms.Intervals()
	if n == 0 {
		return
	}
	for _, m := range s.meters {
		for k, u := range m.Series() {
			if k < n {
				s.tr.Counter(traceGroup(m.Name()), m.Name(), "utilisation", from+sim.Tick(k)*width, roundSig(u))
			}
		}
	}
}
