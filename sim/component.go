package sim

import "fmt"

// Ticker is a component's per-cycle work. Tick returns whether the component
// made progress; a component that made none is not ticked again until
// something wakes it, so idle components cost nothing.
type Ticker interface {
	Tick(now Tick) (progress bool)
}

// Waker is anything that can be told it may have work: a port wakes its
// receiver when a message becomes visible and its sender when space frees.
type Waker interface {
	Wake()
}

// Env is what a component needs from the simulation it belongs to: the engine
// and the run's seed (for its random stream).
type Env struct {
	Engine *Engine
	Seed   uint64
	// Meters are the busy-time meters of every resource of the
	// simulation (see Meter).
	Meters *Meters
}

// NewEnv returns an environment with a fresh engine.
func NewEnv(seed uint64) *Env { return &Env{Engine: NewEngine(), Seed: seed, Meters: NewMeters()} }

// TickDriver ticks a Ticker on its clock's rising edges while it makes
// progress, and otherwise sleeps until woken. Wake is deduplicated: at most
// one tick event is pending at any time, and a component never ticks twice on
// one edge.
type TickDriver struct {
	// The fields every wake and tick reads come first, together.
	eng    *Engine
	t      Ticker
	period Tick // the clock's
	pendAt Tick
	// lastTick is the edge of the last tick; before the first, one period
	// before 0 (Tick wraps), so that lastTick+Period, the earliest edge a
	// tick may take, is 0. Edges are multiples of the period, so an edge
	// before that is at or before the last tick.
	lastTick Tick
	// st is the driver's state (stNone, stPending, stIdle, stQuiet), one
	// byte so that a common path tests it once.
	st uint8
	// stIdle: the pending tick is reserved, not queued (WakeIdle). It is
	// queued at its key when anything wakes the driver before its place;
	// once its place has passed, settle runs its bookkeeping (IdleTick).
	// stQuiet: a tick at quietAt, before the pending one, is reserved at
	// quietKey but not queued: the component said it would do nothing
	// and ask for the pending tick again (QuietTicker). The pending tick
	// stays queued at its key, where that tick's request would have put
	// it back. A wake before quietKey's place queues the quiet tick at
	// its key; once the place has passed, settleQuiet counts it as run.
	// canIdle: the component is an IdleTicker and the driver on the
	// engine's own queue, so that WakeIdle may reserve its tick.
	canIdle bool
	// The pending tick's event: its key and, when the queue can take it
	// out again, its handle.
	pendKey Key
	pendH   handle
	edges   edgeTest // whether a time is an edge of the clock
	ticks   uint64
	// wakeIdler is the component when it is a WakeIdler.
	wakeIdler WakeIdler
	// arrivals are wakes by messages arriving on ports (port events of
	// priority PrioDeliver) that are reserved but not queued: at their
	// place the driver will be due to tick no later than the edge they
	// would wake it for, so they would do nothing. One is queued at its key
	// as soon as that may no longer hold (after a tick).
	arrivals []Key
	// ghosts are the keys of tick events that are not in the queue
	// although an engine that left nothing out would hold them: superseded
	// events taken out, and events a wake would have added for a time that
	// already had one. Such an event runs at its place and does nothing -
	// unless the driver has been woken for its time by then, when it is the
	// one that ticks. A wake for a time therefore takes the smallest key,
	// its own or a ghost's, whose place has not passed.
	ghosts  []Key
	idler   IdleTicker
	quieter QuietTicker

	name  string
	clock ClockDomain
	// woken is the handler of the driver's port arrivals: it wakes the
	// driver, as each port's own wake would.
	woken    arrivalWake
	quietAt  Tick
	quietKey Key
	quiets   uint64 // quiet ticks counted as run without an event
}

// The states of TickDriver.st. Idle and quiet ticks are pending ones, and
// never both: a test of the byte against one constant answers each
// question (pending: not stNone; idle or quiet: above stPending).
const (
	stNone    uint8 = iota // no tick is pending
	stPending              // a tick is pending at pendAt (pendKey), queued
	stIdle                 // pending, and reserved, not queued (WakeIdle)
	stQuiet                // pending, and a quiet tick at quietAt is reserved before it
)

// QuietTicker is a Ticker that can say, when a wake asks for a tick at an
// edge before its pending one, that the tick there would do nothing at
// all and ask for the pending tick again, as things stand: a stage in its
// accept interval woken by a message it cannot take before then. Whatever
// could change that before the edge wakes the driver again.
type QuietTicker interface {
	Ticker
	QuietAt(at, pending Tick) bool
}

// IdleTicker is a Ticker that can say, at one tick, what its next tick
// will do when nothing wakes it before then: IdleTick(at) does exactly
// what Tick(at) would do in that case (bookkeeping only: it makes no
// progress, sends nothing, takes no message that arrived by at and asks
// for no other tick).
type IdleTicker interface {
	Ticker
	IdleTick(at Tick)
}

// WakeIdler is an IdleTicker that can say, when it is woken, that the
// tick the wake asks for will do only what IdleTick does as things stand
// (a stage that accepts nothing and whose head item waits for a full
// queue): then Wake reserves that tick (WakeIdle) instead of queueing it.
// Whatever could change that before the tick wakes the driver again.
type WakeIdler interface {
	IdleTicker
	IdleOnWake(now Tick) bool
	// IdleTickOnWake is IdleTick(at) then IdleOnWake(now) in one call:
	// a wake finding that the reserved idle tick at at has passed.
	IdleTickOnWake(at, now Tick) bool
}

// arrivalWake wakes its driver when a message arriving on one of the
// driver's ports becomes visible.
type arrivalWake struct{ d *TickDriver }

func (w *arrivalWake) Handle(Tick, uint64) { w.d.Wake() }

var _ Handler = (*TickDriver)(nil)
var _ Waker = (*TickDriver)(nil)

// NewTickDriver returns a driver for t. It does not tick until woken.
func NewTickDriver(name string, clock ClockDomain, eng *Engine, t Ticker) *TickDriver {
	d := &TickDriver{name: name, clock: clock, period: clock.Period, eng: eng, t: t, lastTick: -clock.Period, edges: newEdgeTest(clock.Period)}
	d.woken.d = d
	d.idler, _ = t.(IdleTicker)
	d.canIdle = d.idler != nil && eng.alt == nil
	d.wakeIdler, _ = t.(WakeIdler)
	d.quieter, _ = t.(QuietTicker)
	return d
}

// Name is the component's hierarchical name.
func (d *TickDriver) Name() string { return d.name }

// Clock is the component's clock domain.
func (d *TickDriver) Clock() ClockDomain { return d.clock }

// Ticks is the number of ticks run so far.
func (d *TickDriver) Ticks() uint64 {
	d.Settle()
	return d.ticks
}

// QuietTicks is the number of ticks counted as run without an event
// because the component said they would do nothing (QuietTicker).
func (d *TickDriver) QuietTicks() uint64 {
	d.Settle()
	return d.quiets
}

// Wake schedules a tick at the next edge at or after now (strictly after the
// last tick), unless one is already pending at or before that edge. It
// only reserves the tick when a WakeIdler says it will be idle.
//
// Wake, WakeAt, WakeIdle and arrival are kept out of line: each has many
// hot callers, and a copy inlined at each (as the profile-guided build
// would) crowds the instruction cache more than the calls cost.
//
//go:noinline
func (d *TickDriver) Wake() {
	e := d.eng
	if d.st > stPending { // one test for both, most wakes having neither
		if d.st == stIdle { // touch, written out: most wakes of a reserved tick settle it
			switch {
			case !e.Passed(d.pendKey):
				d.queueIdle()
			case d.wakeIdler == nil:
				d.settleIdle()
			case d.wakeIdler.IdleTickOnWake(d.idleRan(), e.now):
				// settleIdle and the question below in one call;
				// nothing is pending or quiet now.
				d.WakeIdle(e.now)
				return
			default:
				goto queue
			}
		}
		if d.st == stQuiet {
			d.unquiet()
		}
	}
	if d.st != stNone {
		at := d.edgeFor(e.now)
		if at >= d.pendAt || d.quieter != nil && d.reserveQuiet(at) {
			return
		}
		d.wakeAt(at)
		return
	}
	if d.wakeIdler != nil && d.wakeIdler.IdleOnWake(e.now) {
		d.WakeIdle(e.now)
		return
	}
	// queue, written out: on the paths of most wakes its call costs more
	// than its lines.
queue:
	at := d.edgeFor(e.now)
	k := e.place(at, PrioTick) // queued at once: no hold
	if len(d.ghosts) > 0 {
		k = d.ghostFor(k)
	}
	d.st = stPending
	d.pendAt, d.pendKey = at, k
	d.pendH = e.pushTracked(k, d, uint64(at))
}

// WakeAt schedules a tick at the first edge at or after t (t >= now).
// Out of line, as Wake.
//
//go:noinline
func (d *TickDriver) WakeAt(t Tick) {
	if d.st > stPending {
		if d.st == stIdle {
			d.touch()
		}
		if d.st == stQuiet {
			d.unquiet()
		}
	}
	e := d.eng
	at := d.edgeFor(max(t, e.now))
	if d.st != stNone {
		if d.pendAt <= at {
			return
		}
		d.supersede()
	}
	// queue, written out as in Wake.
	k := e.place(at, PrioTick) // queued at once: no hold
	if len(d.ghosts) > 0 {
		k = d.ghostFor(k)
	}
	d.st = stPending
	d.pendAt, d.pendKey = at, k
	d.pendH = e.pushTracked(k, d, uint64(at))
}

// reserveQuiet reserves the tick a wake asks for at at, before the
// pending tick, when the component says it would do nothing and ask for
// the pending tick again (QuietTicker): the pending tick keeps its key and
// stays queued. It reports whether it did.
func (d *TickDriver) reserveQuiet(at Tick) bool {
	e := d.eng
	if d.st == stIdle || e.alt != nil || !d.quieter.QuietAt(at, d.pendAt) {
		return false
	}
	k := d.keyFor(at)
	if !e.Virtual(k) {
		// Its place has passed already: queue it as a wake would.
		d.supersede()
		d.pendAt, d.pendKey = at, k
		d.pendH = e.pushTracked(k, d, uint64(at))
		return true
	}
	e.hold(at)
	d.st = stQuiet
	d.quietAt, d.quietKey = at, k
	return true
}

// unquiet is a wake, an arrival or a tick reaching a driver with a
// reserved quiet tick: if its place has passed, it ran (settleQuiet);
// otherwise it is queued at its key and the pending tick is superseded,
// as the wake that asked for it would have done.
func (d *TickDriver) unquiet() {
	if d.settleQuiet() {
		return
	}
	d.st = stPending
	d.supersede()
	d.pendAt, d.pendKey = d.quietAt, d.quietKey
	d.pendH = d.eng.pushTracked(d.quietKey, d, uint64(d.quietAt))
}

// settleQuiet counts a reserved quiet tick whose place has passed as run:
// it did nothing, and the pending tick it asked for again is queued. It
// reports whether it did.
func (d *TickDriver) settleQuiet() bool {
	if !d.eng.Passed(d.quietKey) {
		return false
	}
	d.st = stPending
	at := d.quietAt
	d.lastTick = at
	d.ticks++
	d.quiets++
	if len(d.arrivals) > 0 {
		d.checkArrivals(at)
	}
	return true
}

// supersede takes the pending tick's event out of the queue, when the
// queue can, for an earlier one; an event left in runs and does nothing
// (its time no longer matches) unless the tick is asked for there again.
func (d *TickDriver) supersede() {
	e := d.eng
	if e.Virtual(d.pendKey) && e.remove(d.pendH, d.pendAt) {
		e.hold(d.pendAt)
		d.ghosts = append(d.ghosts, d.pendKey)
	}
}

// edgeFor is the edge a wake for t asks for: the first at or after t,
// strictly after the last tick. The first edge after the last tick is the
// answer for any t up to it; a t after it is most often an edge itself.
func (d *TickDriver) edgeFor(t Tick) Tick {
	if first := d.lastTick + d.period; t <= first {
		return first
	}
	if d.edges.is(t) {
		return t
	}
	return d.clock.NextEdge(t)
}

func (d *TickDriver) wakeAt(at Tick) {
	if d.st != stNone {
		if d.pendAt <= at {
			return
		}
		// An earlier wake supersedes the pending one. Its event is ignored
		// when it runs (its time no longer matches); it is taken out of the
		// queue when the queue can, and remembered as a ghost.
		d.supersede()
	}
	d.queue(at)
}

// queue queues the tick at at, no tick being pending.
func (d *TickDriver) queue(at Tick) {
	k := d.keyFor(at)
	d.st = stPending
	d.pendAt, d.pendKey = at, k
	d.pendH = d.eng.pushTracked(k, d, uint64(at))
}

// keyFor reserves the key of a tick at at, at or after now; its caller
// holds at (Engine.hold) unless it queues the key at once.
func (d *TickDriver) keyFor(at Tick) Key {
	k := d.eng.place(at, PrioTick)
	if len(d.ghosts) > 0 {
		k = d.ghostFor(k)
	}
	return k
}

// ghostFor returns the key the tick of n's time takes, n being the key of
// the event a wake adds: the smallest of n and the ghosts of that time
// whose place has not passed. The others stay ghosts (n among them when a
// ghost is taken); ghosts whose place has passed are forgotten.
func (d *TickDriver) ghostFor(n Key) Key {
	k, keep := n, d.ghosts[:0]
	for _, g := range d.ghosts {
		switch {
		case d.eng.Passed(g):
			continue
		case g.at == n.at && before(&g, &k) == 1:
			g, k = k, g
		}
		keep = append(keep, g)
	}
	d.ghosts = keep // keys hold no pointers: the tail needs no clearing
	return k
}

// Handle runs one tick.
func (d *TickDriver) Handle(now Tick, arg uint64) {
	if d.st != stPending { // not pending, or idle or quiet too
		if d.st == stNone || Tick(arg) != d.pendAt {
			return // superseded wake
		}
		// A quiet tick's place is before this one: it settles.
		if d.st == stQuiet && !d.settleQuiet() && Invariants {
			panic(fmt.Sprintf("sim: invariant: %s: tick at %v before its quiet tick at %v", d.name, now, d.quietAt))
		}
	} else if Tick(arg) != d.pendAt {
		return // superseded wake
	}
	// An idle tick's time can match a superseded event still queued with
	// a smaller key: the tick runs here, as it would have.
	d.st = stNone
	d.lastTick = now
	d.ticks++
	if d.t.Tick(now) {
		if d.st == stIdle {
			d.touch()
		}
		d.wakeAt(now + d.period)
	}
	if len(d.arrivals) > 0 {
		d.checkArrivals(now)
	}
}

// arrival is a port's message becoming visible at at, which wakes the
// driver there (d.woken, at priority PrioDeliver). When the driver is due to tick
// by the edge that wake would ask for, the event would do nothing and is
// only reserved.
//
// A reserved idle tick (WakeIdle) takes no message: an arrival it covers
// is reserved as for any tick (and forgotten when the idle tick settles),
// and a later one is queued at its key now rather than after the tick.
// Out of line, as Wake.
//
//go:noinline
func (d *TickDriver) arrival(at Tick) {
	if d.st > stPending { // idle or quiet
		if d.st == stIdle && d.eng.Passed(d.pendKey) {
			d.settleIdle()
		}
		if d.st == stQuiet && at <= d.quietAt { // at's edge is at or before the quiet tick
			d.unquiet() // the message may be taken at the quiet tick
		}
	}
	k := d.eng.place(at, PrioDeliver) // at is now plus the port's latency
	if d.dueBy(at) && d.eng.Virtual(k) {
		if d.st == stIdle && at > d.pendAt {
			d.eng.ScheduleKey(k, &d.woken, 0)
			return
		}
		d.eng.hold(at)
		d.arrivals = append(d.arrivals, k)
		return
	}
	d.eng.ScheduleKey(k, &d.woken, 0)
}

// dueBy reports whether a tick is pending at or before t's edge, the one
// a wake at t asks for: the pending tick's time, an edge, is at or before
// it exactly when it is before t+Period.
func (d *TickDriver) dueBy(t Tick) bool { return d.st != stNone && d.pendAt < t+d.period }

// checkArrivals, after a tick at now, forgets the reserved arrivals whose
// place has passed and queues those that would no longer do nothing.
func (d *TickDriver) checkArrivals(now Tick) {
	keep := d.arrivals[:0]
	for _, k := range d.arrivals {
		switch {
		case k.at <= now:
		case d.dueBy(k.at):
			keep = append(keep, k)
		default:
			d.eng.ScheduleKey(k, &d.woken, 0)
		}
	}
	d.arrivals = keep // keys hold no pointers: the tail needs no clearing
}

// WakeIdle is WakeAt(t) for a tick the component knows, now, will do only
// what IdleTicker.IdleTick does unless something wakes the driver (Wake,
// WakeAt, a port arrival) before it runs. The tick is reserved at the
// place WakeAt would give it but not queued: a wake before that place
// queues it there, and it runs as usual; otherwise its place passes and
// Settle runs IdleTick for it. Either way every other event keeps its
// place and the run is the same, less one event. Without an IdleTicker,
// when a tick or reserved arrival is already pending, or on another queue
// than the engine's own (the reference of the tests), it is WakeAt.
// Out of line, as Wake.
//
//go:noinline
func (d *TickDriver) WakeIdle(t Tick) {
	if !d.canIdle || d.st != stNone || len(d.arrivals) > 0 { // idle or quiet: pending too
		d.WakeAt(t)
		return
	}
	e := d.eng
	at := d.edgeFor(max(t, e.now))
	k := e.place(at, PrioTick) // keyFor, written out as in Wake
	if len(d.ghosts) > 0 {
		k = d.ghostFor(k)
	}
	d.st = stPending
	d.pendAt, d.pendKey = at, k
	if !e.Virtual(k) {
		d.pendH = e.pushTracked(k, d, uint64(at))
		return
	}
	e.hold(at)
	d.pendH = handle{}
	d.st = stIdle
}

// ReserveIdle is WakeIdle for the pending tick, queued for now and not run
// yet, when the component learns during another event of this edge that
// it will do only what IdleTick does (a stage whose next item needs a
// resource that was just taken): the tick is taken out of the queue and
// reserved at its key, as WakeIdle would have reserved it. It reports
// whether it did; not when a reserved arrival is pending (as WakeIdle),
// on another queue, or when the queue cannot take the event out.
func (d *TickDriver) ReserveIdle() bool {
	e := d.eng
	if d.st != stPending || !d.canIdle || d.pendAt != e.now || len(d.arrivals) > 0 {
		return false
	}
	if !e.Virtual(d.pendKey) || !e.remove(d.pendH, d.pendAt) {
		return false
	}
	e.hold(d.pendAt)
	d.pendH = handle{}
	d.st = stIdle
	return true
}

// touch is a wake reaching a driver whose pending tick is reserved: if its
// place has passed, it ran (settleIdle); otherwise it is queued at its key.
func (d *TickDriver) touch() {
	if d.eng.Passed(d.pendKey) {
		d.settleIdle()
		return
	}
	d.queueIdle()
}

// queueIdle queues the reserved idle tick at its key: it is a tick again.
func (d *TickDriver) queueIdle() {
	d.st = stPending
	d.pendH = d.eng.pushTracked(d.pendKey, d, uint64(d.pendAt))
}

// Settle runs the bookkeeping of a reserved idle tick whose place has
// passed (IdleTick), so that the component's state and statistics are
// those of the run that queued it. Wakes settle by themselves; readers of
// statistics call it first (Registry.OnRead).
func (d *TickDriver) Settle() {
	if d.st == stQuiet {
		d.settleQuiet()
	}
	if d.st == stIdle && d.eng.Passed(d.pendKey) {
		d.settleIdle()
	}
}

// settleIdle runs the reserved idle tick, whose place has passed. The
// reserved arrivals are all at or before it (none was reserved when it
// was, and arrival queues a later one at once): they are forgotten.
func (d *TickDriver) settleIdle() { d.idler.IdleTick(d.idleRan()) }

// idleRan counts the reserved idle tick, whose place has passed, as run,
// all but its IdleTick, and returns its time.
func (d *TickDriver) idleRan() Tick {
	d.st = stNone
	at := d.pendAt
	d.lastTick = at
	d.ticks++
	if Invariants {
		for _, k := range d.arrivals {
			if k.at > at {
				panic(fmt.Sprintf("sim: invariant: %s: arrival at %v reserved after its idle tick at %v", d.name, k.at, at))
			}
		}
	}
	d.arrivals = d.arrivals[:0]
	return at
}
