package pcie

import "github.com/nicsim/nicsim/sim"

// flight is a burst on its way to the far end. Its arrival is an event at
// k, or, when it is quiet (it changes nothing at the far end, only the
// bookkeeping of the peer transmitter while that one is busy), only
// reserved at k and applied once k has passed (settleArrivals).
type flight struct {
	b     burst
	k     sim.Key
	quiet bool
	early bool // the far end took its TLP when it left (receiver.early)
}

// launch sends the burst that just ended towards the far end. Its arrival
// is an event, unless it is quiet: then only its place is reserved (the
// same place, so every other event keeps its order) and settleArrivals
// applies it once that place has passed. A flight is quiet when it would
// change nothing but the peer transmitter's bookkeeping while that one is
// busy (owed ACKs and UpdateFCs, credits it reads only when its burst
// ends): it changes nothing at the far end, and it carries nothing or the
// peer is busy. Should the peer fall idle before it arrives, wakeQuiet
// makes its arrival an event again.
//
// The far end may take the burst's TLP at once (receiver.early) when no
// TLP before it is still to be taken at its arrival, so that the far end
// sees them in order.
func (t *tx) launch(now sim.Tick) {
	k := t.eng.Reserve(now+t.latency, sim.PrioDeliver)
	// start filled in the burst in place; the next one goes after it.
	r, f := &t.inflight, t.cur
	if r.Commit(); r.Len() == r.Cap() {
		r.Grow()
		f = r.Slot(r.Len() - 1)
	}
	t.cur = r.Spare()
	f.k, f.early = k, false
	if f.b.hasTLP {
		if t.late == 0 && t.rx.early(now, k.At(), &f.b.t) {
			f.early = true
		} else {
			t.late++
		}
	}
	// quiet, inline: it changes nothing at the far end, and it carries
	// nothing or the peer is busy.
	b := &f.b
	if t.peer.busy {
		f.quiet = !b.hasTLP || f.early || t.rx.inert(&b.t)
	} else {
		f.quiet = !b.hasTLP && !b.hasFC
	}
	f.quiet = f.quiet && t.eng.Virtual(k)
	if !f.quiet {
		t.eng.ScheduleKey(k, t.arriveEv, 0)
	}
}

// wakeQuiet queues at their places the quiet arrivals still to come: the
// peer transmitter they account to has fallen idle, where an UpdateFC or a
// TLP wakes it.
func (t *tx) wakeQuiet() {
	for i := 0; i < t.inflight.Len(); i++ {
		f := t.inflight.Slot(i)
		if f.quiet && !t.eng.Passed(f.k) && (f.b.hasTLP || f.b.hasFC) {
			f.quiet = false
			t.eng.ScheduleKey(f.k, t.arriveEv, 0)
		}
	}
}

// settleArrivals applies the quiet arrivals whose place has passed, in
// order. Every reader of what they change (the peer's end of burst, this
// direction's next arrival event, the peer's credit meters) calls it
// first.
func (t *tx) settleArrivals() {
	if t.inflight.Len() > 0 && t.inflight.Front().quiet {
		t.settleQuiet()
	}
}

func (t *tx) settleQuiet() {
	for t.inflight.Len() > 0 {
		f := t.inflight.Front()
		if !f.quiet || !t.eng.Passed(f.k) {
			return
		}
		t.arriveFlight(f.k.At(), f)
	}
}

// arrive hands a burst to the far end: credits carried by an UpdateFC go
// back to the peer direction's transmitter; a TLP goes to the receiver,
// which owes an ACK and (for finite classes) returns its credits on the
// opposite direction.
func (t *tx) arrive(now sim.Tick, b *burst, early bool) {
	if b.hasFC {
		t.peer.cred.release(now, &b.fc, b.fcCls)
		t.peer.kick()
	}
	if !b.hasTLP {
		return
	}
	if !early {
		t.rx.receive(now, &b.t)
	}
	t.peer.oweACK(now)
	if h, d := t.cred.returnable(b.t.class, b.t.payload); h|d != 0 {
		t.peer.oweFC(b.t.class, h, d)
	}
}

// arriveFlight is the arrival of the oldest burst in flight, f.
func (t *tx) arriveFlight(now sim.Tick, f *flight) {
	if f.b.hasTLP && !f.early {
		t.late--
	}
	t.arrive(now, &f.b, f.early)
	t.inflight.Drop() // a flight holds no pointers
}
