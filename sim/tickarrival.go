// Reserved arrivals: a message becoming visible on a port wakes the
// driver at PrioDeliver. When the driver is due to tick by the edge that wake
// would ask for, the arrival event would do nothing, so it is reserved at its
// key rather than queued, and queued after a tick that leaves it needed.

package sim

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
