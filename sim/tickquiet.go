// Quiet ticks: a wake asking for an edge before the pending tick, of a
// component that says the tick there would do nothing and ask for the pending
// tick again (QuietTicker), reserves that tick at its key instead of queueing
// it. A later wake before its place queues it; once its place has passed it
// counts as run.

package sim

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
