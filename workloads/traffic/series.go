package traffic

import (
	"math/bits"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// SeriesIntervals is how many intervals the measured window is cut into
// for a point's time series unless run.timeseries_interval_us says
// otherwise (the window of an ops run is sim_time_max_us less warm-up, so
// its series is coarse unless the run is long).
const SeriesIntervals = 100

// seriesClock places times into the intervals of a point's series: of
// width `width`, aligned on the end of warm-up, reaching back into warm-up
// at most SeriesWarmupIntervalsMax intervals and no earlier than the end
// of setup.
type seriesClock struct {
	t0, base, width, warm sim.Tick
	n                     int // intervals up to the planned end
}

func newSeriesClock(t0, warm, end, width sim.Tick) seriesClock {
	back := min((warm-t0)/width, results.SeriesWarmupIntervalsMax)
	base := warm - back*width
	return seriesClock{t0: t0, base: base, width: width, warm: warm, n: int((end - base + width - 1) / width)}
}

// index is the interval of time at, or -1 before the series starts.
func (c *seriesClock) index(at sim.Tick) int {
	if at < c.base {
		return -1
	}
	return min(int((at-c.base)/c.width), c.n-1)
}

// genSeries collects one generator's completions per interval.
type genSeries struct {
	c  *seriesClock
	at []seriesInterval
	// The interval k last recorded into, [lo, hi): completions come in
	// time order, so most fall in it and need no division to place.
	lo, hi sim.Tick
	k      int
}

// seriesInterval is what genSeries keeps of one interval, together: a
// completion touches one record.
type seriesInterval struct {
	completed, failed, bytes uint64
	lat                      latSketch
}

func newGenSeries(c *seriesClock) *genSeries {
	return &genSeries{c: c, at: make([]seriesInterval, c.n)}
}

// record counts an operation completed at now, failed or with its latency
// and bytes.
func (s *genSeries) record(now, latency sim.Tick, bytes uint64, failed bool) {
	if now < s.lo || now >= s.hi {
		if !s.place(now) {
			return
		}
	}
	in := &s.at[s.k]
	in.completed++
	if failed {
		in.failed++
		return
	}
	in.bytes += bytes
	in.lat.record(uint64(latency))
}

// place makes the interval of now the one record adds to; false before
// the series starts. The last interval takes every later time.
func (s *genSeries) place(now sim.Tick) bool {
	k := s.c.index(now)
	if k < 0 {
		return false
	}
	c := s.c
	s.k, s.lo, s.hi = k, c.base+sim.Tick(k)*c.width, c.base+sim.Tick(k+1)*c.width
	if k == c.n-1 {
		s.hi = sim.MaxTick
	}
	return true
}

// result is the series up to interval end (exclusive).
func (s *genSeries) result(name string, end int) results.GenSeries {
	gs := results.GenSeries{Name: name, Completed: make([]uint64, end), Failed: make([]uint64, end), Bytes: make([]uint64, end)}
	for k := range end {
		in := &s.at[k]
		gs.Completed[k], gs.Failed[k], gs.Bytes[k] = in.completed, in.failed, in.bytes
		l := &in.lat
		gs.LatencyCount = append(gs.LatencyCount, l.n)
		gs.P50NS = append(gs.P50NS, l.quantile(0.5)/1e3)
		gs.P99NS = append(gs.P99NS, l.quantile(0.99)/1e3)
		gs.MaxNS = append(gs.MaxNS, float64(l.max)/1e3)
	}
	return gs
}

// latSketch is a small latency histogram: buckets 1/64 to 1/128 of their
// value wide, kept in blocks of 64 made where samples fell. A bucket's key
// (sketchKey) is its block and its place in it: block k>>6, entry k&63, so
// that walking the blocks in order walks the keys in order. Blocks 2 and
// up of even number stay empty (an octave's keys above 127 all have bit 6
// set). A map of the buckets cost a hashed insert per sample.
type latSketch struct {
	n, max uint64
	blocks []*[sketchBlock]uint64
}

const (
	sketchBits  = 7  // mantissa bits of a bucket
	sketchBlock = 64 // buckets per block
)

func sketchKey(v uint64) uint32 {
	if v < 1<<sketchBits {
		return uint32(v)
	}
	e := uint(bits.Len64(v)) - sketchBits
	return uint32(e)<<sketchBits | uint32(v>>e)
}

// sketchMid is the middle of bucket k.
func sketchMid(k uint32) float64 {
	e := uint(k >> sketchBits)
	if e == 0 {
		return float64(k)
	}
	lo := uint64(k&(1<<sketchBits-1)) << e
	return float64(lo) + float64(uint64(1)<<e)/2
}

func (l *latSketch) record(v uint64) {
	l.n++
	l.max = max(l.max, v)
	k := sketchKey(v)
	b := int(k / sketchBlock)
	if b >= len(l.blocks) {
		l.blocks = append(l.blocks, make([]*[sketchBlock]uint64, b+1-len(l.blocks))...)
	}
	blk := l.blocks[b]
	if blk == nil {
		blk = new([sketchBlock]uint64)
		l.blocks[b] = blk
	}
	blk[k%sketchBlock]++
}

// quantile is the nearest-rank quantile q (bucket middle, at most the
// maximum); 0 without samples.
func (l *latSketch) quantile(q float64) float64 {
	if l.n == 0 {
		return 0
	}
	rank := max(uint64(q*float64(l.n)+0.999999999), 1)
	var seen uint64
	for b, blk := range l.blocks {
		if blk == nil {
			continue
		}
		for i, c := range blk {
			if seen += c; c > 0 && seen >= rank {
				return min(sketchMid(uint32(b*sketchBlock+i)), float64(l.max))
			}
		}
	}
	return float64(l.max)
}

// resourceSeries are the meters' series over their window, when the run
// loop has set one.
func resourceSeries(ms *sim.Meters, t0 sim.Tick) []results.ResourceSeries {
	from, width, n := ms.Intervals()
	if n == 0 {
		return nil
	}
	var out []results.ResourceSeries
	for _, m := range ms.List() {
		out = append(out, results.ResourceSeries{Name: m.Name(), Unit: m.Unit(), Capacity: m.Capacity(),
			StartPS: uint64(from - t0), IntervalPS: uint64(width), Utilisation: m.Series()})
	}
	return out
}
