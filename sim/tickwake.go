// The tick driver's wakes and ticks: a wake asks for the first edge at or
// after its time, strictly after the last tick, and queues that tick unless
// one is pending at or before it; an earlier wake supersedes the pending tick
// (taken out when the queue can, remembered as a ghost, whose key a later wake
// for its time takes). Handle runs the pending tick and asks for the next
// edge while the component makes progress.

package sim

import "fmt"

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
