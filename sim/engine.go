package sim

import (
	"errors"
	"fmt"
)

// ErrPastEvent is returned when an event is scheduled before the current time.
var ErrPastEvent = errors.New("sim: event scheduled in the past")

// Engine is a single-threaded discrete-event engine. It holds no locks:
// parallelism comes from running many engines at once, never from one engine.
// Events run in (time, priority, insertion sequence) order, so a run is fully
// determined by what was scheduled.
type Engine struct {
	q        queue
	now      Tick
	seq      uint64
	stopped  bool
	executed uint64
	depth    int // handlers running (InEvent)
}

// NewEngine returns an engine at time 0 with an empty queue.
func NewEngine() *Engine { return &Engine{q: newEventQueue()} }

// queue is what the engine needs from its event queue. The engine's own is
// *eventQueue, called directly; another implementation (the reference heap
// of the tests and benchmarks) is called through the interface.
type queue interface {
	Len() int
	push(event)
	pop() event
	peek() Tick
}

func (e *Engine) qlen() int {
	if q, ok := e.q.(*eventQueue); ok {
		return q.n
	}
	return e.q.Len()
}

func (e *Engine) qpeek() Tick {
	if q, ok := e.q.(*eventQueue); ok {
		return q.peek()
	}
	return e.q.peek()
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
	e.push(e.now+d, prio, h, arg)
}

func (e *Engine) push(at Tick, prio Priority, h Handler, arg uint64) {
	e.seq++
	if e.seq >= 1<<seqBits-1 {
		panic("sim: event sequence number overflow") // 2^56 events: unreachable in practice
	}
	ev := event{at: at, ord: uint64(prio)<<seqBits | e.seq, h: h, arg: arg}
	if q, ok := e.q.(*eventQueue); ok {
		q.push(ev)
	} else {
		e.q.push(ev)
	}
}

// Step runs the next event, if any, and reports whether one ran.
func (e *Engine) Step() bool { return e.stepUntil(MaxTick) }

// stepUntil runs the next event if there is one at or before t, and reports
// whether one ran.
func (e *Engine) stepUntil(t Tick) bool {
	var ev event
	if q, ok := e.q.(*eventQueue); ok {
		var due bool
		if ev, due = q.popUntil(t); !due {
			return false
		}
	} else {
		if e.q.Len() == 0 || e.q.peek() > t {
			return false
		}
		ev = e.q.pop()
	}
	if Invariants && ev.at < e.now {
		panic(fmt.Sprintf("sim: invariant: event at %v dispatched after time %v", ev.at, e.now))
	}
	e.now = ev.at
	e.executed++
	e.depth++
	ev.h.Handle(ev.at, ev.arg)
	e.depth--
	return true
}

// InEvent reports whether an event's handler is running: code called from
// a handler must not run the engine itself.
func (e *Engine) InEvent() bool { return e.depth > 0 }

// Run runs events until none is left or Stop is called.
func (e *Engine) Run() {
	e.stopped = false
	for !e.stopped && e.stepUntil(MaxTick) {
	}
}

// RunUntil runs every event at or before t, then sets the time to t (unless
// Stop was called first). It gives deterministic stopping points: events at
// exactly t run.
func (e *Engine) RunUntil(t Tick) {
	e.stopped = false
	for !e.stopped && e.stepUntil(t) {
	}
	if !e.stopped && t > e.now {
		e.now = t
	}
}

// Stop makes Run or RunUntil return after the current event.
func (e *Engine) Stop() { e.stopped = true }

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
