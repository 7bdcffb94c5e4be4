package sim

import "math"

// eventQueue is the engine's event queue, ordered by (time, priority,
// sequence). It has three modes, chosen by the number of pending events:
//
//   - ring mode, up to ringOn events (a NIC model keeps a few dozen): a
//     timing wheel of nanosecond slots over the next microseconds, later
//     events in a small heap (nearRing); above ringCrowd events it ends as
//     soon as a slot's list grows long (crowded);
//   - heap mode, up to calendarOn events: every event sits in one 4-ary
//     heap (nearHeap);
//   - calendar mode, above it: a calendar queue in the manner of R. Brown
//     (CACM 1988) and of the ladder queue of Tang, Goh and Thng (2005), which
//     sorts only the near future. Time is cut into windows of 2^shift ticks
//     kept in a ring of unsorted buckets (calendar); when dispatch reaches a
//     window, its bucket's entries are sorted once by a counting sort
//     (windowRun) and dispatched from the front. Events scheduled into the
//     window after that wait in the heap, and each dispatch takes the smaller
//     of the run's and the heap's first. The queue goes back to heap mode
//     below calendarOff events.
//
// After warm-up nothing allocates.
type eventQueue struct {
	n int // live events
	// ringCap is ringOn in ring mode and 0 otherwise, so that one
	// comparison tells whether an event can go to the ring (n < ringCap)
	// and whether the next one is in it (0 < n <= ringCap).
	ringCap int
	winLast Tick // events at or before winLast go to near or run; MaxTick in heap mode

	growAt, shrinkAt int // n outside [shrinkAt, growAt] changes the mode or the ring

	calendarMode bool
	near         nearHeap  // heap mode: every event; calendar mode: late arrivals in the current window
	run          windowRun // calendar mode: the current window, sorted
	cal          calendar
	scratch      []event  // a window's entries on their way into run
	small        nearRing // ring mode: every event
}

const (
	// calendarOn and calendarOff bound heap mode, with a 4x hysteresis so
	// that a population swinging around one of them does not rebuild at every
	// event. Measured in one run (BenchmarkPHOLDQueues with the threshold
	// varied): PHOLD at 1024 to 4096 pending events ran 10-30 % faster in
	// calendar mode than in heap mode, while the hold model with clock-like
	// increments (BenchmarkQueueHold) ran about as fast or faster in heap mode
	// up to a few thousand; 2048 sits between.
	calendarOn  = 2048
	calendarOff = calendarOn / 4

	// ringOn and ringOff bound ring mode. Up to ringCrowd events the ring
	// is the fastest whatever their spread; above it, up to ringOn (as
	// many as its node pool holds), only while they spread over many
	// slots: a new event linked further than ringWalkMax into its slot's
	// list ends ring mode (crowded). Measured in one run
	// (BenchmarkQueueHold, ring against heap mode, 96 to 240 pending):
	// with exponential increments the ring took 0.6 to 0.7 of heap
	// mode's time, with clock-like ones (a few ticks shared by many) 1.3
	// to 1.7 times it. The queue returns to ring mode below ringOff, a
	// quarter of ringCrowd.
	ringOn    = ringNodes - 2
	ringCrowd = 64
	ringOff   = ringCrowd / 4
)

func newEventQueue() *eventQueue {
	q := &eventQueue{}
	q.init()
	return q
}

// init makes the zero queue an empty queue in ring mode.
func (q *eventQueue) init() {
	q.winLast, q.growAt, q.ringCap = MaxTick, ringOn, ringOn
	q.near.init()
	q.small.init()
}

// ringMode reports whether the queue is in ring mode.
func (q *eventQueue) ringMode() bool { return q.ringCap != 0 }

// Len is the number of events held.
func (q *eventQueue) Len() int { return q.n }

func (q *eventQueue) push(ev event) {
	q.n++
	if q.ringMode() {
		// ringInsert without the handle, written out: through the call,
		// PHOLD on this queue behind the engine's interface ran about 7 %
		// slower at 128 pending (BenchmarkPHOLDQueues, three runs).
		if _, long := q.small.insert(qkey{ev.at, ev.ord}, ev.h, ev.arg); long && q.crowded() {
			return
		}
		if q.n > ringOn {
			q.ringToHeap()
		}
		return
	}
	if ev.at <= q.winLast {
		k, v := qkey{ev.at, ev.ord}, payload{ev.h, ev.arg}
		if q.near.hole { // the usual case: a handler schedules its next event
			q.near.hole = false
			q.near.down(0, k, v)
		} else {
			q.near.append(k, v)
		}
	} else {
		q.cal.add(ev)
	}
	if q.n > q.growAt {
		q.grow()
	}
}

// handle names a queued event the queue can take out again: its ring node
// and the ring's epoch when it was queued. The zero handle names none.
type handle struct{ node, epoch uint32 }

// ringInsert adds an event to the ring, in ring mode, and returns its
// handle: one that names no event when the event went to the far heap,
// or when the ring was crowded and the queue left ring mode.
func (q *eventQueue) ringInsert(k qkey, h Handler, arg uint64) handle {
	id, long := q.small.insert(k, h, arg)
	if long && q.crowded() {
		return handle{}
	}
	return handle{id, q.small.epoch}
}

// crowded ends ring mode when more than ringCrowd events are pending:
// a new event was linked far into its slot's list, where a heap places
// events for less. It reports whether it did. Below ringCrowd the ring
// stays, however crowded: it is the fastest there.
func (q *eventQueue) crowded() bool {
	if q.n <= ringCrowd {
		return false
	}
	q.ringToHeap()
	return true
}

// remove takes out the event at time at that h names, if the queue can; it
// reports whether it did. The event must not have been dispatched.
func (q *eventQueue) remove(h handle, at Tick) bool {
	if h.node == 0 || !q.ringMode() || h.epoch != q.small.epoch {
		return false
	}
	q.small.remove(h.node, at)
	q.n--
	return true
}

// popUntil removes and returns the smallest event if the queue holds one at
// or before t.
func (q *eventQueue) popUntil(t Tick) (event, bool) {
	if q.n == 0 {
		return event{}, false
	}
	if q.ringMode() {
		if q.small.peek(q.n).at > t {
			return event{}, false
		}
		q.n--
		return q.small.take(q.n + 1), true
	}
	if !q.calendarMode {
		q.near.settle()
		if q.near.keys[0].at > t {
			return event{}, false
		}
		q.n--
		ev := q.near.take()
		if q.n < ringOff {
			q.heapToRing()
		}
		return ev, true
	}
	if q.peek() > t {
		return event{}, false
	}
	return q.pop(), true
}

// pop removes and returns the smallest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	q.n--
	if q.ringMode() {
		return q.small.take(q.n + 1)
	}
	if !q.calendarMode {
		q.near.settle()
		ev := q.near.take()
		if q.n < ringOff {
			q.heapToRing()
		}
		return ev
	}
	q.near.settle()
	if q.run.empty() && q.near.n == 0 {
		q.advance()
	}
	var ev event
	if q.near.n > 0 && (q.run.empty() || q.nearFirst()) {
		ev = q.near.take()
	} else {
		ev = q.run.take()
	}
	q.cal.sample(ev.at)
	if q.n < q.shrinkAt || q.cal.miscalibrated() {
		q.shrink()
	}
	return ev
}

// peek returns the smallest event's time without removing it. The queue must
// not be empty. It may move the current window forward, which changes nothing
// observable.
func (q *eventQueue) peek() Tick {
	if q.ringMode() {
		return q.small.peek(q.n).at
	}
	q.near.settle()
	if !q.calendarMode {
		return q.near.keys[0].at
	}
	if q.run.empty() && q.near.n == 0 {
		q.advance()
	}
	if q.near.n > 0 && (q.run.empty() || q.nearFirst()) {
		return q.near.keys[0].at
	}
	return q.run.first().at
}

// nearFirst reports whether the heap's first event comes before the run's.
// Neither may be empty.
func (q *eventQueue) nearFirst() bool {
	k := q.run.first()
	return before(&q.near.keys[0], &k) == 1
}

// advance moves the calendar to the next window holding an event and sorts
// it into the run. The run and the heap must be empty and the calendar not.
func (q *eventQueue) advance() {
	c := &q.cal
	found := false
	for k := 0; k < len(c.buckets) && !found; k++ {
		c.win++
		found = q.load(c.win & c.mask)
	}
	if !found { // a whole year without an event: jump to the minimum's window
		c.win = c.minWindow()
		q.load(c.win & c.mask)
	}
	q.winLast = c.winLast()
}

// load sorts the entries of bucket b that fall in the current window into
// the run and reports whether there were any; entries of later years stay.
func (q *eventQueue) load(b uint64) bool {
	w := q.cal.take(b, q.cal.winLast(), q.scratch[:0])
	if len(w) == 0 {
		return false
	}
	q.run.fill(w, q.cal.winStart(), q.cal.shift)
	clear(w)
	q.scratch = w[:0]
	return true
}

// grow switches to calendar mode or doubles the ring.
func (q *eventQueue) grow() {
	nb := minBuckets
	if q.calendarMode {
		nb = 2 * len(q.cal.buckets)
	}
	for bucketFillMax*nb < q.n {
		nb *= 2
	}
	q.rebuild(nb)
}

// shrink halves the ring, re-measures the window width, or goes back to heap
// mode.
func (q *eventQueue) shrink() {
	switch {
	case q.n < calendarOff:
		q.toHeap()
	case q.n < q.shrinkAt:
		q.rebuild(len(q.cal.buckets) / 2)
	default:
		q.rebuild(len(q.cal.buckets))
	}
}

// rebuild (re)creates the calendar with nb buckets and redistributes every
// event.
func (q *eventQueue) rebuild(nb int) {
	all := q.near.drain(make([]event, 0, q.n))
	all = q.run.drain(all)
	all = q.cal.drain(all)
	q.winLast = q.cal.reset(nb, all)
	w := q.scratch[:0]
	for i := range all {
		if all[i].at <= q.winLast {
			w = append(w, all[i])
		} else {
			q.cal.add(all[i])
		}
	}
	q.run.fill(w, q.cal.winStart(), q.cal.shift)
	clear(w)
	q.scratch = w[:0]
	q.calendarMode = true
	q.growAt = math.MaxInt
	if nb < maxBuckets {
		q.growAt = bucketFillMax * nb
	}
	q.shrinkAt = calendarOff
	if nb > minBuckets {
		q.shrinkAt = max(calendarOff, bucketFillMin*nb)
	}
}

// toHeap moves every event into the heap.
func (q *eventQueue) toHeap() {
	q.near.settle()
	rest := q.run.drain(q.scratch[:0])
	for i := range rest {
		q.near.add(&rest[i])
	}
	clear(rest)
	q.scratch = rest[:0]
	rest = q.cal.drain(q.scratch[:0])
	for i := range rest {
		q.near.add(&rest[i])
	}
	clear(rest)
	q.scratch = rest[:0]
	q.near.heapify()
	q.cal.gapSum, q.cal.gapN, q.cal.gapPos = 0, 0, 0
	q.winLast = MaxTick
	q.calendarMode = false
	q.growAt, q.shrinkAt = calendarOn, 0
}

// ringToHeap moves every event from the ring into the heap.
func (q *eventQueue) ringToHeap() {
	rest := q.small.drain(q.scratch[:0], q.n)
	for i := range rest {
		q.near.add(&rest[i])
	}
	clear(rest)
	q.scratch = rest[:0]
	q.near.heapify()
	q.ringCap = 0
	q.growAt, q.shrinkAt = calendarOn, 0
}

// heapToRing moves every event from the heap into the ring.
func (q *eventQueue) heapToRing() {
	rest := q.near.drain(q.scratch[:0])
	q.small.load(rest)
	clear(rest)
	q.scratch = rest[:0]
	q.ringCap = ringOn
	q.growAt = ringOn
}
