// Idle ticks: a tick the component knows will do only bookkeeping
// (IdleTicker.IdleTick) unless something wakes it first is reserved at its
// key, not queued (WakeIdle, ReserveIdle). A wake before its place queues it
// there; once its place has passed, the bookkeeping runs when the driver is
// next touched or its statistics are read (Settle).

package sim

import "fmt"

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
