package sim

import "math/bits"

// bucketQueue is the engine's event queue, ordered by (time, priority,
// sequence). It is a two-level structure in the calendar-queue family
// (R. Brown, CACM 1988; the ladder queue of Tang, Goh and Thng, 2005, has the
// same idea of sorting only the near future):
//
//   - time is cut into coarse windows of 2^shift ticks, kept in a ring of
//     buckets; a bucket is an unsorted slice, and scheduling into a future
//     window is an append;
//   - the current window's events sit in a small binary heap. When the heap
//     runs dry the next window's bucket is moved into it (events of a later
//     year stay behind).
//
// With millions of pending events this keeps every touch sequential or inside
// a heap of a few dozen entries, instead of one cache miss per comparison. The
// window width follows the observed spacing of dispatched events (about
// windowTarget events per window) and the ring grows and shrinks with the
// population. After warm-up, scheduling and dispatching allocate nothing.
type bucketQueue struct {
	heap    []event   // current window, a binary min-heap
	buckets [][]event // ring of future windows
	mask    uint64    // len(buckets)-1
	shift   uint      // window width = 1 << shift ticks
	win     uint64    // absolute index of the current window
	winEnd  Tick      // end of the current window (exclusive); heap holds exactly the events before it
	n       int       // live entries

	last   Tick   // time of the last dispatched event
	gapSum uint64 // sum of recent inter-dispatch gaps
	gapN   uint64
}

const (
	minBuckets   = 16
	windowTarget = 64   // events per window aimed for
	gapSamplesN  = 4096 // dispatch gaps sampled between width checks
)

func newBucketQueue() *bucketQueue {
	q := &bucketQueue{shift: 10}
	q.buckets = make([][]event, minBuckets)
	q.mask = minBuckets - 1
	q.winEnd = Tick(1) << q.shift
	return q
}

// Len is the number of events held.
func (q *bucketQueue) Len() int { return q.n }

func (q *bucketQueue) push(ev event) {
	q.n++
	if ev.at < q.winEnd {
		q.heapPush(ev)
	} else {
		b := (uint64(ev.at) >> q.shift) & q.mask
		q.buckets[b] = append(q.buckets[b], ev)
	}
	if q.n > 2*windowTarget*len(q.buckets) && len(q.buckets) < 1<<26 {
		q.rebuild(len(q.buckets) * 2)
	}
}

// pop removes and returns the smallest event. The queue must not be empty.
func (q *bucketQueue) pop() event {
	if len(q.heap) == 0 {
		q.advance()
	}
	ev := q.heapPop()
	q.n--
	if ev.at > q.last && q.gapN < gapSamplesN {
		q.gapSum += uint64(ev.at - q.last)
		q.gapN++
	}
	q.last = ev.at
	switch {
	case q.n < windowTarget*len(q.buckets)/8 && len(q.buckets) > minBuckets:
		q.rebuild(len(q.buckets) / 2)
	case q.gapN == gapSamplesN:
		// Re-calibrate when the ideal width is 4x off; a steady population
		// never triggers a resize, so the width must be checked on its own.
		if s := q.idealShift(); s+2 <= q.shift || s >= q.shift+2 {
			q.rebuild(len(q.buckets))
		} else {
			q.gapSum, q.gapN = 0, 0
		}
	}
	return ev
}

// peek returns the smallest event's time without removing it. It may move
// the current window forward, which changes nothing observable.
func (q *bucketQueue) peek() Tick {
	if len(q.heap) == 0 {
		q.advance()
	}
	return q.heap[0].at
}

// advance moves the current window forward to the next window holding an
// event and loads that window's events into the heap. The queue must hold at
// least one event and the heap must be empty.
func (q *bucketQueue) advance() {
	for k := 0; k < len(q.buckets); k++ {
		q.win++
		q.winEnd = Tick((q.win + 1) << q.shift)
		if q.load(q.win & q.mask) {
			return
		}
	}
	// A whole year without an event: jump to the window of the minimum.
	lo := MaxTick
	for _, b := range q.buckets {
		for i := range b {
			lo = min(lo, b[i].at)
		}
	}
	q.win = uint64(lo) >> q.shift
	q.winEnd = Tick((q.win + 1) << q.shift)
	q.load(q.win & q.mask)
}

// load moves the events of bucket b that fall before winEnd into the heap
// and reports whether any did. Events of later years stay in the bucket.
func (q *bucketQueue) load(b uint64) bool {
	bk := q.buckets[b]
	if len(bk) == 0 {
		return false
	}
	keep := bk[:0]
	for i := range bk {
		if bk[i].at < q.winEnd {
			q.heap = append(q.heap, bk[i])
		} else {
			keep = append(keep, bk[i])
		}
	}
	clear(bk[len(keep):]) // drop handler references for the GC
	q.buckets[b] = keep
	if len(q.heap) == 0 {
		return false
	}
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	return true
}

// rebuild re-creates the ring with nb buckets and a width from the observed
// event spacing, and redistributes every event.
func (q *bucketQueue) rebuild(nb int) {
	all := make([]event, 0, q.n)
	all = append(all, q.heap...)
	for _, b := range q.buckets {
		all = append(all, b...)
	}
	if q.gapN >= 16 {
		q.shift = q.idealShift()
	} else if len(all) > 1 {
		lo, hi := MaxTick, Tick(0)
		for i := range all {
			lo, hi = min(lo, all[i].at), max(hi, all[i].at)
		}
		q.shift = shiftFor(uint64(hi-lo) / uint64(len(all)))
	}
	q.gapSum, q.gapN = 0, 0
	if len(q.buckets) != nb {
		q.buckets = make([][]event, nb)
	} else {
		for i := range q.buckets {
			clear(q.buckets[i])
			q.buckets[i] = q.buckets[i][:0]
		}
	}
	q.mask = uint64(nb - 1)
	q.win = uint64(q.last) >> q.shift
	q.winEnd = Tick((q.win + 1) << q.shift)
	clear(q.heap)
	q.heap = q.heap[:0]
	for i := range all {
		if all[i].at < q.winEnd {
			q.heap = append(q.heap, all[i])
		} else {
			b := (uint64(all[i].at) >> q.shift) & q.mask
			q.buckets[b] = append(q.buckets[b], all[i])
		}
	}
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q *bucketQueue) idealShift() uint { return shiftFor(q.gapSum / q.gapN) }

// shiftFor is log2 of a window holding about windowTarget events spaced gap
// ticks apart.
func shiftFor(gap uint64) uint {
	w := gap * windowTarget
	if w < 1 {
		w = 1
	}
	s := uint(bits.Len64(w) - 1)
	return min(s, 50)
}

func (q *bucketQueue) heapPush(ev event) {
	q.heap = append(q.heap, ev)
	h := q.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !ev.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

func (q *bucketQueue) heapPop() event {
	h := q.heap
	ev := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = event{}
	q.heap = h[:last]
	if last > 1 {
		q.down(0)
	}
	return ev
}

// down sifts the element at i into place, moving a hole rather than swapping.
func (q *bucketQueue) down(i int) {
	h := q.heap
	n := len(h)
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
