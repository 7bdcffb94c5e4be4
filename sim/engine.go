package sim

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrPastEvent is returned when an event is scheduled before the current time.
var ErrPastEvent = errors.New("sim: event scheduled in the past")

// Engine is a single-threaded discrete-event engine. It holds no locks:
// parallelism comes from running many engines at once, never from one engine.
// Events run in (time, priority, insertion sequence) order, so a run is fully
// determined by what was scheduled.
type Engine struct {
	// (now, hwmOrd) is the high-water mark, the largest key dispatched or
	// passed by a run's end or RunUntil's bound: an event queued with a key
	// below it would have run (see Reserve). Its time is the current time:
	// time moves only to a dispatched event's (never before now) or to a
	// run's end, and the mark moves with it.
	now      Tick
	hwmOrd   uint64
	seq      uint64
	executed uint64
	// maxAt is the latest time an event was reserved for (an event
	// scheduled with Schedule or After runs before Run returns, so its
	// time needs no record).
	maxAt Tick
	depth int // handlers running (InEvent)
	// stopSeq: dispatch returns after an event once seq has reached it:
	// seqSafe while it runs on, 0 to return after the current event
	// (Stop, or Step's one event). One test after each event thus both
	// halts and guards the sequence numbers (seqSafe).
	stopSeq uint64
	// until: dispatch runs the events at or before it (its bound, kept
	// here so that the loop reads it with the engine rather than from its
	// own frame).
	until Tick
	// stopped: the last run ended because of Stop.
	stopped bool
	// all: Virtual refuses every key (LeaveNothingOut).
	all bool
	alt queue // another queue (tests and benchmarks compare against it)
	// q is the engine's queue, held in the engine so that the hot paths
	// reach it without a load; never in ring mode when alt is set.
	q eventQueue
}

// LeaveNothingOut makes the engine run every event its components would
// otherwise leave out as doing nothing: Virtual refuses every key, so each
// reserved event is queued. Results are the same, with more events; tests
// compare the two.
func (e *Engine) LeaveNothingOut() { e.all = true }

// NewEngine returns an engine at time 0 with an empty queue.
func NewEngine() *Engine {
	// A reversed build (SameTimeReversed) leaves nothing out: an event is
	// reserved on the rule that a key taken later comes later among those
	// of its time and priority, which reversal breaks.
	e := &Engine{seq: seqInit, all: SameTimeReversed}
	e.q.init()
	return e
}

// queue is what the engine needs from an event queue. The engine's own is
// *eventQueue, called directly; another implementation (the reference heap
// of the tests and benchmarks, newEngineWith) is called through the
// interface.
type queue interface {
	Len() int
	push(event)
	pop() event
	peek() Tick
}

// newEngineWith returns an engine on another queue. Its own queue stays
// empty and out of ring mode, so that every fast path, which tests ring
// mode, leaves the work to alt.
func newEngineWith(q queue) *Engine { return &Engine{alt: q, seq: seqInit, all: SameTimeReversed} }

func (e *Engine) qlen() int {
	if e.alt == nil {
		return e.q.n
	}
	return e.alt.Len()
}

func (e *Engine) qpeek() Tick {
	if e.alt == nil {
		return e.q.peek()
	}
	return e.alt.peek()
}

// Now is the current simulated time.
func (e *Engine) Now() Tick { return e.now }

// Pending is the number of scheduled events not yet run.
func (e *Engine) Pending() int { return e.qlen() }

// Executed is the number of events run so far.
func (e *Engine) Executed() uint64 { return e.executed }

// Schedule runs h.Handle(at, arg) at time at. Scheduling before Now is an
// error and schedules nothing.
func (e *Engine) Schedule(at Tick, prio Priority, h Handler, arg uint64) error {
	if at < e.now {
		return fmt.Errorf("%w: at %v, now %v", ErrPastEvent, at, e.now)
	}
	e.push(at, prio, h, arg)
	return nil
}

// After runs h.Handle after delay d. It cannot fail.
func (e *Engine) After(d Tick, prio Priority, h Handler, arg uint64) {
	e.seq += seqStep // nextOrd, written out so that After inlines
	e.schedule(Key{e.now + d, uint64(prio)<<seqBits | e.seq}, h, arg)
}

// nextOrd takes the next sequence number for an event of priority prio.
// It does not test for overflow: dispatch does, before and after every
// event (seqSafe).
func (e *Engine) nextOrd(prio Priority) uint64 {
	e.seq += seqStep
	return uint64(prio)<<seqBits | e.seq
}

// seqSafe bounds the sequence numbers: dispatch panics when it finds seq
// at or above it, before it runs an event and after each. A sequence
// number spills into the priority bits of a key at 2^seqBits-1, 2^55
// placements after seqSafe: no handler, and no stretch of code between
// two runs, places that many keys (it would take years), so no key placed
// before the panic is wrong.
const seqSafe = 1 << (seqBits - 1)

// errSeqOverflow is the panic of dispatch when seq reaches seqSafe.
const errSeqOverflow = "sim: event sequence number overflow"

func (e *Engine) push(at Tick, prio Priority, h Handler, arg uint64) {
	e.schedule(Key{at, e.nextOrd(prio)}, h, arg)
}

// Reserve takes the place an event of priority prio at time at (not before
// Now) would take if it were scheduled now, without scheduling it. A
// component whose event would do nothing when it runs, as far as it can tell
// now, reserves it instead of scheduling it, and schedules it at the key
// (ScheduleKey) as soon as that may change - before Passed says the event's
// place has been reached. Every other event keeps its place: the run is the
// same event for event, only the events that did nothing are not run. A key
// that Virtual refuses must be scheduled at once.
func (e *Engine) Reserve(at Tick, prio Priority) Key {
	at = max(at, e.now)
	e.hold(at)
	return e.place(at, prio)
}

// place is Reserve for a time at or after Now that its caller records
// with hold unless it schedules the key at once (a scheduled event runs
// before Run returns, so its time needs no record): the tick driver's
// path, whose times are never before Now.
//
// It takes the sequence number itself (nextOrd, written out): an inlined
// call inside an inlined call costs a no-op instruction at every call
// site.
func (e *Engine) place(at Tick, prio Priority) Key {
	e.seq += seqStep
	return Key{at, uint64(prio)<<seqBits | e.seq}
}

// hold records at as the time of an event reserved and not scheduled, or
// taken out of the queue: time ends no earlier when Run returns.
func (e *Engine) hold(at Tick) {
	if at > e.maxAt {
		e.maxAt = at
	}
}

// Virtual reports whether an event reserved at k may stay unscheduled: no
// event after it in the order has run yet. It and Passed compare with
// branches, not with before's borrow chain: their answer for one call site
// is mostly the same, and the time alone most often decides it.
func (e *Engine) Virtual(k Key) bool {
	return !e.all && (k.at > e.now || k.at == e.now && k.ord > e.hwmOrd)
}

// Passed reports whether an event at k, had it been scheduled when k was
// reserved, would have run by now. Only meaningful for a key Virtual
// accepted.
func (e *Engine) Passed(k Key) bool { return k.at < e.now || k.at == e.now && k.ord < e.hwmOrd }

// hwm is the high-water mark as a key.
func (e *Engine) hwm() Key { return Key{e.now, e.hwmOrd} }

// ScheduleKey schedules h.Handle(k's time, arg) at the place k reserved. The
// place must not have been passed.
func (e *Engine) ScheduleKey(k Key, h Handler, arg uint64) {
	if Invariants && e.Passed(k) {
		panic(fmt.Sprintf("sim: invariant: event scheduled at key (%v, %x) already passed", k.at, k.ord))
	}
	e.schedule(k, h, arg)
}

// pushTracked schedules an event at key k and returns a handle to it when
// the queue can take it out again (remove).
func (e *Engine) pushTracked(k Key, h Handler, arg uint64) handle { return e.schedule(k, h, arg) }

// schedule queues an event at key k and returns a handle to it when the
// queue can take it out again (remove). The usual case, an event within
// the window of the ring mode's queue, is written out here: it is
// appended to its slot's list, at the tail when, as usual, it comes after
// the last, else most often at the head (a delivery at the time of a tick
// queued before it). It is kept out of line: every caller shares one copy,
// where a copy inlined at each hot call site would crowd the instruction
// cache.
//
//go:noinline
func (e *Engine) schedule(k Key, h Handler, arg uint64) handle {
	q := &e.q
	r := &q.small
	s := uint64(k.at) >> ringShift
	if q.n >= q.ringCap || s-r.cur >= ringSlots {
		return e.scheduleSlow(k, h, arg)
	}
	// Fewer than ringOn events are queued, so fewer than ringOn nodes are
	// in use and the pool has a free one.
	q.n++
	id := r.free // fill, written out: inlined, its call would leave a no-op instruction
	nd := &r.nodes[id]
	r.free = nd.next
	nd.k, nd.v, nd.next = k, payload{h, arg}, 0
	p := s & (ringSlots - 1)
	first := r.head[p]
	switch t := r.tail[p]; {
	case first == 0: // the usual case: into an empty slot (its tail is stale)
		r.head[p], r.tail[p] = id, id
		r.bits[p>>6] |= 1 << (p & 63)
	case earlier(&r.nodes[t].k, &nd.k): // after the last
		r.nodes[t].next = id
		r.tail[p] = id
	default:
		if earlier(&nd.k, &r.nodes[first].k) { // before the first
			nd.next = first
			r.head[p] = id
		} else if r.linkAfter(first, id) && q.crowded() {
			return handle{} // the queue left ring mode
		}
	}
	return handle{uint32(id), r.epoch}
}

// scheduleSlow is schedule outside the usual case.
func (e *Engine) scheduleSlow(k Key, h Handler, arg uint64) handle {
	if q := &e.q; q.n < q.ringCap {
		q.n++
		return q.ringInsert(k, h, arg)
	}
	ev := event{at: k.at, ord: k.ord, h: h, arg: arg}
	if e.alt == nil {
		e.q.push(ev)
	} else {
		e.alt.push(ev)
	}
	return handle{}
}

// remove takes the event at time at that h names out of the queue, if the
// queue can; it reports whether it did.
func (e *Engine) remove(h handle, at Tick) bool { return e.alt == nil && e.q.remove(h, at) }

// Step runs the next event, if any, and reports whether one ran.
func (e *Engine) Step() bool {
	e.stopSeq = 0
	ran := e.dispatch(MaxTick)
	e.stopSeq = seqSafe
	return ran
}

// dispatch runs the events at or before t in order until none is left
// there or stopSeq is 0 (Stop, Step); it reports whether the last attempt
// ran one. It panics when the sequence numbers reach seqSafe.
func (e *Engine) dispatch(t Tick) bool {
	if e.seq^seqXor >= seqSafe {
		panic(errSeqOverflow)
	}
	e.until = t
	e.depth++ // handlers run from here on (InEvent)
	defer func() { e.depth-- }()
	for {
		// The usual case: the next event is the head of the ring's first
		// occupied slot, the current one or one later in the same bitmap
		// word. The bitmap finds either without a test of the current
		// slot, whose outcome no branch predicts, and without a test of
		// the queue's mode: outside ring mode the ring is empty, and so
		// is its bitmap. The window's start stays: the slots between it
		// and the event's are empty and stay so (no event is scheduled
		// in the past), and a window that does not move takes nothing
		// in from far, which need not be tested.
		q := &e.q
		r := &q.small
		c := r.cur
		if b := r.bits[c>>6&(ringSlots/64-1)] >> (c & 63); b != 0 {
			c += uint64(bits.TrailingZeros64(b))
		} else if uint(q.n-1) < uint(q.ringCap) {
			c = r.advance(q.n)
		} else {
			if !e.stepSlow(e.until) {
				return false
			}
			if e.halts() {
				return true
			}
			continue
		}
		id := r.head[c&(ringSlots-1)]
		nd := &r.nodes[id]
		at := nd.k.at
		if at > e.until {
			return false
		}
		// unlinkHead and, after the event, halts, written out: their
		// calls, inlined, would each leave a no-op instruction.
		next := nd.next
		last := (uint64(next) - 1) >> 63
		p := c & (ringSlots - 1)
		r.head[p] = next
		r.bits[p>>6] ^= last << (p & 63)
		nd.next = r.free
		r.free = id
		q.n--
		e.ran(at, nd.k.ord)
		nd.v.h.Handle(at, nd.v.arg)
		if e.seq^seqXor >= e.stopSeq {
			if e.seq^seqXor >= seqSafe {
				panic(errSeqOverflow)
			}
			return true
		}
	}
}

// halts reports, after an event, whether dispatch returns: seq has reached
// stopSeq. It panics when seq has reached seqSafe.
func (e *Engine) halts() bool {
	if e.seq^seqXor >= e.stopSeq {
		if e.seq^seqXor >= seqSafe {
			panic(errSeqOverflow)
		}
		return true
	}
	return false
}

// ran records that the event at key (at, ord) is dispatched: time moves to
// it.
func (e *Engine) ran(at Tick, ord uint64) {
	if Invariants && at < e.now {
		panic(fmt.Sprintf("sim: invariant: event at %v dispatched after time %v", at, e.now))
	}
	// at is not before now: a later time takes the mark whole, the same
	// time the larger order. Selected, not branched on: which of the two
	// it is follows the events, not a pattern a branch predicts.
	h := max(ord, e.hwmOrd)
	if at != e.now {
		h = ord
	}
	e.hwmOrd = h
	e.now = at
	e.executed++
}

func (e *Engine) stepSlow(t Tick) bool {
	var ev event
	if e.alt == nil {
		var due bool
		if ev, due = e.q.popUntil(t); !due {
			return false
		}
	} else {
		if e.alt.Len() == 0 || e.alt.peek() > t {
			return false
		}
		ev = e.alt.pop()
	}
	e.ran(ev.at, ev.ord)
	ev.h.Handle(ev.at, ev.arg)
	return true
}

// InEvent reports whether an event's handler is running: code called from
// a handler must not run the engine itself.
func (e *Engine) InEvent() bool { return e.depth > 0 }

// Run runs events until none is left or Stop is called.
func (e *Engine) Run() {
	e.stopped, e.stopSeq = false, seqSafe
	e.dispatch(MaxTick)
	if !e.stopped {
		// Reserved events that were never scheduled ran too, doing
		// nothing: time ends at the latest event, as it would have.
		e.passTo(max(e.now, e.maxAt))
	}
}

// passTo marks every event at or before t as passed, and moves time to t
// if it is later.
func (e *Engine) passTo(t Tick) {
	if h, k := e.hwm(), (Key{t, ^uint64(0)}); before(&h, &k) == 1 {
		e.now, e.hwmOrd = k.at, k.ord
	}
}

// RunUntil runs every event at or before t, then sets the time to t (unless
// Stop was called first). It gives deterministic stopping points: events at
// exactly t run.
func (e *Engine) RunUntil(t Tick) {
	e.stopped, e.stopSeq = false, seqSafe
	e.dispatch(t)
	if !e.stopped {
		e.passTo(t)
	}
}

// Stop makes Run or RunUntil return after the current event.
func (e *Engine) Stop() { e.stopped, e.stopSeq = true, 0 }

// Stopped reports whether the last run ended because of Stop.
func (e *Engine) Stopped() bool { return e.stopped }

// NextTime is the time of the next event, or MaxTick when there is none.
func (e *Engine) NextTime() Tick {
	if e.qlen() == 0 {
		return MaxTick
	}
	return e.peekTime()
}

func (e *Engine) peekTime() Tick { return e.qpeek() }
