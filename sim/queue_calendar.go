package sim

import (
	"math/bits"
	"slices"
)

// calendar is the far part of the event queue in calendar mode: a ring of
// unsorted buckets, one per window of 2^shift ticks; scheduling into a future
// window is an append. Bucket b holds the windows w with w mod len(buckets)
// == b, so a bucket can hold entries of later turns of the ring ("years");
// they stay behind when the bucket's window is loaded. Every entry in a
// bucket is after the current window. mins[b] bounds bucket b from below, so
// a bucket holding only later years is skipped without being read, and a
// year without events is crossed in one step.
//
// The window width follows the measured spacing of dispatched events (about
// windowTarget events per window) and the ring follows the population
// (bucketFillMin to bucketFillMax entries per bucket on average). The buckets
// start as slices of one store with room for twice the mean fill. When many
// events share a few ticks, a bucket outgrows its place; once loaded, its
// storage waits in spare for the next bucket that overflows, so a steady
// stream of bursts allocates nothing either.
type calendar struct {
	buckets [][]event
	mins    []Tick // mins[b] <= every time in buckets[b]; MaxTick when empty
	store   []event
	per     int       // buckets[b] starts as store[b*per:b*per:(b+1)*per]
	spare   [][]event // empty storage of buckets that outgrew their place, largest last
	mask    uint64    // len(buckets)-1
	shift   uint      // window width = 1 << shift ticks
	win     uint64    // absolute index of the current window

	last   Tick   // time of the last dispatched event
	gapSum uint64 // sum of the inter-dispatch gaps sampled
	gapN   uint64 // gaps sampled
	gapPos uint64 // of which not zero
}

const (
	// windowTarget is the number of events per window aimed for. A window
	// is sorted in linear time (windowRun), so a wide window costs little
	// per event, and fewer, fuller buckets keep the ring's append points in
	// cache. On PHOLD at N*M = 10^4 and 10^6 (BenchmarkPHOLDQueues), 2048
	// measured best on a quiet machine among 512 to 4096, 1024 under load
	// among 64 to 4096 (docs/kernel.md, "Speed").
	windowTarget  = 2048
	bucketFillMax = 2 * windowTarget // mean bucket fill that doubles the ring
	bucketFillMin = windowTarget / 8 // mean bucket fill that halves it
	minBuckets    = 16
	maxBuckets    = 1 << 26
	gapSamplesN   = 4096 // dispatch gaps sampled between width checks, at least
	gapTicksN     = 64   // distinct dispatch times sampled between width checks, at least
	maxShift      = 50
	// spareMax is the number of outgrown bucket storages kept: a clocked
	// model schedules its bursts a few ticks ahead, so a few buckets fill
	// at once.
	spareMax = 4
)

func (c *calendar) add(ev event) {
	b := (uint64(ev.at) >> c.shift) & c.mask
	bk := c.buckets[b]
	if len(bk) == cap(bk) {
		bk = c.grow(bk)
	}
	c.buckets[b] = append(bk, ev)
	c.mins[b] = min(c.mins[b], ev.at)
}

// grow returns a copy of bk with twice its capacity or more, in spare
// storage when there is some that large.
func (c *calendar) grow(bk []event) []event {
	var s []event
	if k := len(c.spare); k > 0 && cap(c.spare[k-1]) >= 2*cap(bk) {
		s = c.spare[k-1][:len(bk)]
		c.spare[k-1] = nil
		c.spare = c.spare[:k-1]
	} else {
		s = make([]event, len(bk), 2*cap(bk))
	}
	copy(s, bk)
	clear(bk)
	return s
}

// retire keeps the empty storage of a bucket that outgrew its place for the
// next one that does: spareMax of them, the largest.
func (c *calendar) retire(bk []event) {
	if len(c.spare) == spareMax {
		if cap(c.spare[0]) >= cap(bk) {
			return
		}
		copy(c.spare, c.spare[1:])
		c.spare = c.spare[:spareMax-1]
	}
	c.spare = append(c.spare, bk)
	for i := len(c.spare) - 1; i > 0 && cap(c.spare[i]) < cap(c.spare[i-1]); i-- {
		c.spare[i], c.spare[i-1] = c.spare[i-1], c.spare[i]
	}
}

// take moves the entries of bucket b at or before end to dst, in the order
// they were added, and returns dst. A bucket whose entries are all later is
// not read.
func (c *calendar) take(b uint64, end Tick, dst []event) []event {
	if c.mins[b] > end {
		return dst
	}
	bk := c.buckets[b]
	keep := bk[:0]
	lo := MaxTick
	for i := range bk {
		if bk[i].at <= end {
			dst = append(dst, bk[i])
		} else {
			keep = append(keep, bk[i])
			lo = min(lo, bk[i].at)
		}
	}
	clear(bk[len(keep):]) // drop handler references for the GC
	c.buckets[b] = keep
	if len(keep) == 0 && cap(keep) > c.per {
		c.retire(keep)
		c.buckets[b] = c.store[int(b)*c.per : int(b)*c.per : int(b+1)*c.per]
	}
	c.mins[b] = lo
	return dst
}

// winLast is the last tick of the current window. The last window of the
// time axis ends at MaxTick: the shift overflows to 0 and the subtraction
// wraps.
func (c *calendar) winLast() Tick { return Tick((c.win+1)<<c.shift) - 1 }

// winStart is the first tick of the current window.
func (c *calendar) winStart() Tick { return Tick(c.win << c.shift) }

// minWindow is the window of the earliest entry. The calendar must hold at
// least one entry.
func (c *calendar) minWindow() uint64 { return uint64(slices.Min(c.mins)) >> c.shift }

// sample records a dispatch time for the width estimate.
func (c *calendar) sample(at Tick) {
	if at != c.last {
		c.gapSum += uint64(at - c.last)
		c.gapPos++
	}
	c.gapN++
	c.last = at
}

// miscalibrated reports, once per gapSamplesN samples, whether the ideal
// width is 4x or more off the current one; a steady population never resizes
// the ring, so the width must be checked on its own. When many events share a
// tick, a sample must span enough distinct ticks (gapTicksN) to measure how
// many events a tick holds.
func (c *calendar) miscalibrated() bool {
	if c.gapN < gapSamplesN || c.gapPos < gapTicksN {
		return false
	}
	if s := c.idealShift(); s+2 <= c.shift || s >= c.shift+2 {
		return true
	}
	c.gapSum, c.gapN, c.gapPos = 0, 0, 0
	return false
}

func (c *calendar) idealShift() uint { return shiftFor(c.gapSum, c.gapN) }

// drain appends every entry to dst and empties the buckets.
func (c *calendar) drain(dst []event) []event {
	for i := range c.buckets {
		dst = append(dst, c.buckets[i]...)
		clear(c.buckets[i])
		c.buckets[i] = c.buckets[i][:0]
		c.mins[i] = MaxTick
	}
	return dst
}

// reset sizes an empty ring of nb buckets for the entries in all (at least
// one), picks the width from the measured gaps or, without enough samples,
// from the entries' spread, places the current window at the earliest entry
// and returns its last tick. The caller then distributes all.
func (c *calendar) reset(nb int, all []event) Tick {
	lo, hi := MaxTick, Tick(0)
	for i := range all {
		lo, hi = min(lo, all[i].at), max(hi, all[i].at)
	}
	if c.gapN >= gapSamplesN/4 && c.gapPos >= gapTicksN {
		c.shift = c.idealShift()
	} else {
		c.shift = shiftFor(uint64(hi-lo), uint64(len(all)))
	}
	c.gapSum, c.gapN, c.gapPos = 0, 0, 0
	c.last = lo
	if len(c.buckets) != nb {
		c.buckets = make([][]event, nb)
		c.mins = make([]Tick, nb)
	}
	for i := range c.mins {
		c.mins[i] = MaxTick
	}
	// One store for every bucket, twice the mean fill each: a bucket's fill
	// swings around the mean, and growing buckets one by one as their
	// high-water marks are reached would allocate for a long time.
	c.per = max(2*len(all)/nb, windowTarget/4)
	c.store = make([]event, nb*c.per)
	clear(c.spare)
	c.spare = c.spare[:0]
	for i := range c.buckets {
		c.buckets[i] = c.store[i*c.per : i*c.per : (i+1)*c.per]
	}
	c.mask = uint64(nb - 1)
	c.win = uint64(lo) >> c.shift
	return c.winLast()
}

// shiftFor is log2 of a window holding about windowTarget events when count
// events take span ticks.
func shiftFor(span, count uint64) uint {
	hi, lo := bits.Mul64(span, windowTarget)
	if hi >= count {
		return maxShift
	}
	w, _ := bits.Div64(hi, lo, count)
	return min(uint(bits.Len64(max(w, 1))-1), maxShift)
}
