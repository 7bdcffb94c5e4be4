package pcie

import "github.com/nicsim/nicsim/sim"

// tlp describes one TLP handed from a source to a transmitter. Sources own
// the storage; the transmitter copies it into its burst.
type tlp struct {
	kind     Kind
	class    fcClass
	addr64   bool   // 4DW header
	last     bool   // last TLP of its request
	msix     bool   // an MSI-X write
	payload  uint64 // data bytes carried (MWr, CplD)
	reqBytes uint64 // bytes requested (MRd)
	addr     uint64
	tag      uint32
	ref      uint32 // source-private: request slot
	seq      uint64 // age, for the ordering rules
}

// set makes t a TLP, field by field: cheaper than assigning a composite
// literal, which is built in a temporary and then copied.
func (t *tlp) set(kind Kind, class fcClass, addr64, last, msix bool, payload, reqBytes, addr uint64, tag, ref uint32, seq uint64) {
	t.kind, t.class, t.addr64, t.last, t.msix = kind, class, addr64, last, msix
	t.payload, t.reqBytes, t.addr = payload, reqBytes, addr
	t.tag, t.ref, t.seq = tag, ref, seq
}

// A source offers a transmitter the TLPs of one flow-control class:
// peek(now) returns its next TLP if it may go at now, or nil and the time
// it will be ready (sim.MaxTick when that depends on another event); take
// commits the TLP peek last returned: it starts on the wire. Each direction
// has two, called directly (tx.pick): upstream the DMA write path (posted)
// and read path (non-posted), downstream the CPU's MMIO path (posted) and
// the host's completions.

// receiver is the far end of a direction.
type receiver interface {
	receive(now sim.Tick, t *tlp)
	// early takes t, which leaves now and arrives at at, at once when what
	// it does there can be worked out now, and reports whether it did:
	// nothing else reaches this end before at, and the events it schedules
	// fall after at.
	early(now, at sim.Tick, t *tlp) bool
	// inert reports that receiving t changes nothing at the far end.
	inert(t *tlp) bool
}

// burst is what a transmitter puts on the wire in one go: DLLPs and SKP
// ordered sets that fell due, then at most one TLP.
type burst struct {
	hasTLP bool
	hasFC  bool
	fcCls  uint8 // a bit for each class fc returns credits of
	t      tlp
	fc     [classCount][2]uint64 // credits an UpdateFC returns to the peer direction
}

// Timer kinds in the low two bits of a transmitter event's arg, with the
// timer's time above them so that superseded timers can be ignored. The
// end of a burst and an arrival have handlers of their own (txEnd,
// txArrive).
const (
	evTimer = 2
	evWake  = 3
)

// tx is one direction of the link: a transmitter that serialises TLPs,
// the DLLPs for the opposite direction's traffic and SKP ordered sets at
// byte time, and delivers them to the far end after LinkLatencyNS.
type tx struct {
	name      string
	eng       *sim.Engine
	ser       *sim.Serializer
	rate      sim.Rate
	latency   sim.Tick
	ecrc      bool
	interval  uint64   // bytes between ACKs and between UpdateFCs
	ivTicks   sim.Tick // bytesTicks(interval): an idle transmitter's ACK and UpdateFC delay
	dllpTicks sim.Tick // bytesTicks(DLLPBytes)
	st        *DirStats
	meter     *sim.Meter // serialisation busy time
	peer      *tx
	rx        receiver
	// The sources: down selects the downstream pair (mm posted, hs
	// completions), otherwise the upstream pair (wr posted, rd non-posted).
	down   bool
	wr, rd *path
	mm     *mmio
	hs     *host
	ocl    fcClass // the class of the source besides the posted one
	cred   credits

	// Link traffic falls due by bytes sent: an ACK and an UpdateFC each
	// interval bytes, an SKP ordered set each SKPIntervalBytes. sent counts
	// the bytes put on the wire; each kind falls due when sent reaches its
	// mark, and dueAt is the earliest mark (one test per burst).
	sent, dueAt        uint64
	ackAt, fcAt, skpAt uint64
	owedACK, owedFC    bool
	ackPending         bool // an idle transmitter owes an ACK due at ackDueAt
	ackDueAt           sim.Tick
	fcRet              [classCount][2]uint64 // credits to return for the peer direction's TLPs
	fcCls              uint8                 // a bit for each class fcRet holds credits of

	busy     bool
	lit      bool     // the meter's level is 1: a burst that follows another at once leaves it so
	starting bool     // inside start: a source woke a client that kicked
	endEv    txEnd    // the handlers of this transmitter's end of burst
	arriveEv txArrive // and of an arrival
	cur      *flight  // the burst on the wire or next, in the slot after those in flight (ring.spare)
	fin      burst    // just finished, arriving at once (no latency)
	inflight sim.FIFO[flight]
	late     int // bursts in flight whose TLP the far end takes on arrival

	timerArmed bool
	timerAt    sim.Tick
	wakeArmed  bool
	wakeAt     sim.Tick
	blocked    [classCount]bool
	seq        uint64
}

var _ sim.Handler = (*tx)(nil)

// txEnd is the end of a transmitter's burst: an event with a handler of
// its own, which need not dispatch on the event's kind as tx.Handle does.
type txEnd struct{ t *tx }

func (e txEnd) Handle(now sim.Tick, _ uint64) { e.t.end(now) }

// txArrive is the arrival of a transmitter's oldest burst in flight, when
// it is an event (launch).
type txArrive struct{ t *tx }

func (e txArrive) Handle(now sim.Tick, _ uint64) {
	t := e.t
	if t.inflight.Front().quiet { // settleArrivals: the ring holds this flight
		t.settleQuiet()
	}
	t.arriveFlight(now, t.inflight.Front())
}

func (t *tx) nextSeq() uint64 { t.seq++; return t.seq }

func (t *tx) bytesTicks(n uint64) sim.Tick {
	return sim.Tick(n * t.rate.PSNum / t.rate.PSDen)
}

// Handle runs the transmitter's timers.
func (t *tx) Handle(now sim.Tick, arg uint64) {
	switch arg & 3 {
	case evTimer:
		if t.timerArmed && sim.Tick(arg>>2) == now {
			t.timerArmed = false
			if !t.busy {
				t.start(now, true)
			}
		}
	case evWake:
		if t.wakeArmed && sim.Tick(arg>>2) == now {
			t.wakeArmed = false
			t.start(now, false)
		}
	}
}

// kick tells the transmitter it may have something to send. A kick from
// inside start (a source's take woke a client that queued more) is left to
// the start that follows the burst being begun.
func (t *tx) kick() {
	if !t.busy && !t.starting {
		t.start(t.eng.Now(), false)
	}
}

// oweACK records that a TLP from the peer direction arrived and needs
// acknowledging; owedFC that it freed credits to return.
//
// ACKs carry no credits, so an idle transmitter's ACK needs no event: it
// is due one DLLP interval after the TLP it acknowledges and is accounted
// (stats and link time) when the transmitter next starts, the stats are
// read, or another TLP arrives after it fell due (idleACK), unless a busy
// period's own ACK covers it first. Settling a passed one before a new
// TLP is owed keeps one ACK per interval of arrivals, however often the
// stats are read.
func (t *tx) oweACK(now sim.Tick) {
	t.idleACK(now)
	t.owedACK = true
	if !t.busy && !t.ackPending {
		t.ackPending = true
		t.ackDueAt = now + t.ivTicks
	}
}

// idleACK accounts the ACK an idle transmitter sent at ackDueAt.
func (t *tx) idleACK(now sim.Tick) {
	if t.ackPending && now >= t.ackDueAt {
		t.sendIdleACK()
	}
}

// sendIdleACK accounts the ACK due at ackDueAt, which has passed.
func (t *tx) sendIdleACK() {
	t.ackPending = false
	if !t.owedACK {
		return
	}
	t.owedACK = false
	t.ackAt = t.sent + t.interval
	t.setDue()
	t.st.ACKs++
	t.st.DLLPBytes += DLLPBytes
	t.st.WireBytes += DLLPBytes
	d := t.dllpTicks
	t.st.BusyPS += uint64(d)
	t.meter.Busy(t.ackDueAt, t.ackDueAt+d)
}

func (t *tx) oweFC(cl fcClass, h, d uint64) {
	t.fcRet[cl][0] += h
	t.fcRet[cl][1] += d
	t.owedFC, t.fcCls = true, t.fcCls|1<<cl
	if !t.busy {
		t.armTimer()
	}
}

// armTimer schedules the UpdateFC an idle transmitter owes one DLLP
// interval from now (the spec's UpdateFC latency).
func (t *tx) armTimer() {
	if t.timerArmed {
		return
	}
	t.timerArmed = true
	t.timerAt = t.eng.Now() + t.ivTicks
	t.eng.After(t.timerAt-t.eng.Now(), sim.PrioDefault, t, uint64(t.timerAt)<<2|evTimer)
}

func (t *tx) armWake(at sim.Tick) {
	if t.wakeArmed && t.wakeAt <= at {
		return
	}
	t.wakeArmed = true
	t.wakeAt = at
	t.eng.After(at-t.eng.Now(), sim.PrioDefault, t, uint64(at)<<2|evWake)
}

// pick chooses the TLP to send: among classes whose head is ready and has
// credits, the oldest; a non-posted request or a completion never passes
// an older posted write (PCIe Base Spec 2.4.1, ordering table rows B/C,
// column 2), while a posted write may pass a stalled read or completion.
func (t *tx) pick(now sim.Tick) (best *tlp, bestCl fcClass, wake sim.Tick) {
	// Both heads first, then the choice: the choice's state stays in
	// registers, not saved around each source's call.
	var p, o *tlp
	pAt, oAt := sim.MaxTick, sim.MaxTick
	if t.down {
		p, pAt = t.mm.peek(now)
		o, oAt = t.hs.peek(now)
	} else {
		p, pAt = t.wr.peek(now)
		if t.rd.lane > 0 { // peek, with no call for the read lane, mostly empty
			o, oAt = t.rd.peekHead(now)
		}
	}
	wake = sim.MaxTick
	switch {
	case p == nil:
		wake = pAt
		t.unblock(now, classP)
	case !t.cred.fits(classP, p.payload):
		t.stall(now, classP, p.payload)
	default:
		t.unblock(now, classP)
		best, bestCl = p, classP
	}
	cl := t.ocl
	switch {
	case o == nil:
		wake = min(wake, oAt)
		t.unblock(now, cl)
	case !t.cred.fits(cl, o.payload):
		t.stall(now, cl, o.payload)
	default:
		t.unblock(now, cl)
		if p == nil || t.olderThan(o, p) {
			best, bestCl = o, cl
		}
	}
	return best, bestCl, wake
}

// olderThan reports whether o, the head of the source beside the posted
// one, entered the transmit queue before p, the posted head: a read
// request or completion never passes an older posted write (p blocked or
// ready), and a posted write is sent before a younger one. Upstream both
// enter the queue as they are submitted (seq). Downstream a completion
// enters when its data is ready and an MMIO write when the CPU emits it,
// so a completion whose MRd arrived before a write was posted, but whose
// data was not ready yet, goes after it.
func (t *tx) olderThan(o, p *tlp) bool {
	if t.down {
		if or, pr := t.hs.headReady(), t.mm.headReady(); or != pr {
			return or < pr
		}
	}
	return o.seq < p.seq
}

// stall counts a credit stall of class cl's head, whose payload is
// payload bytes, the first time it finds the receiver out of credits, and
// tells the meter of each pool short of them that the head waits.
func (t *tx) stall(now sim.Tick, cl fcClass, payload uint64) {
	if !t.blocked[cl] {
		t.blocked[cl] = true
		t.st.CreditStalls++
		t.st.CreditStallsByClass[cl]++
		t.cred.waits(now, cl, payload)
	}
}

// unblock marks class cl's head not waiting for credits (none, or it
// fits) at now.
func (t *tx) unblock(now sim.Tick, cl fcClass) {
	if t.blocked[cl] {
		t.blocked[cl] = false
		t.cred.waited(now, cl)
	}
}

// take commits the TLP of class cl that pick chose.
func (t *tx) take(now sim.Tick, cl fcClass, p *tlp) {
	switch {
	case t.down && cl == classP:
		t.mm.take(now, p)
	case t.down:
		t.hs.take(now, p)
	case cl == classP:
		t.wr.take(now, p)
	default:
		t.rd.take(now, p)
	}
}

// start begins the next burst if there is anything to send. forced sends
// the DLLPs an idle transmitter owes (its timer fired).
func (t *tx) start(now sim.Tick, forced bool) {
	if t.busy {
		return
	}
	t.idleACK(now)
	var n uint64
	b := &t.cur.b
	b.hasTLP, b.hasFC = false, false
	// Link-layer traffic that fell due, ahead of the next TLP.
	if forced || t.sent >= t.dueAt {
		n = t.linkTraffic(b, forced)
	}
	p, cl, wake := t.pick(now)
	if p != nil {
		b.hasTLP = true
		b.t = *p
		t.cred.consume(now, cl, p.payload)
		t.starting = true
		t.take(now, cl, &b.t)
		t.starting = false
		w := OverheadBytes(p.kind, p.addr64, t.ecrc) + p.payload
		n += w
		st := t.st
		st.TLPs[p.kind]++
		st.TLPBytes += w
		st.PayloadBytes += p.payload
	}
	if n == 0 {
		if t.owedFC && !t.timerArmed {
			t.armTimer()
		}
		if t.owedACK && !t.ackPending {
			t.ackPending = true
			t.ackDueAt = now + t.ivTicks
		}
		if wake != sim.MaxTick {
			t.armWake(wake)
		}
		return
	}
	t.ackPending = false // a busy transmitter's own ACKs cover what it owes
	// The one count of bytes sent brings every kind of link traffic nearer
	// its mark.
	t.sent += n
	d := t.ser.Ticks(n)
	st := t.st
	st.WireBytes += n
	st.BusyPS += uint64(d)
	t.busy = true
	// A burst that follows another at once leaves the meter's level at 1.
	if !t.lit {
		t.meter.Set(now, 1)
		t.lit = true
	}
	t.eng.After(d, sim.PrioDeliver, t.endEv, 0)
}

// linkTraffic puts the SKP ordered sets, ACKs and UpdateFCs that fell due
// into burst b and returns their bytes. forced sends the UpdateFC an idle
// transmitter owes.
func (t *tx) linkTraffic(b *burst, forced bool) uint64 {
	var n uint64
	for t.sent >= t.skpAt {
		t.skpAt += SKPIntervalBytes
		n += SKPBytes
		t.st.SKPs++
		t.st.SKPBytes += SKPBytes
	}
	// A busy transmitter sends one ACK and one UpdateFC per interval bytes
	// of its own link time; an idle one sends what it owes when its timer
	// fires.
	for t.sent >= t.ackAt {
		t.ackAt += t.interval
		t.owedACK = false
		n += DLLPBytes
		t.st.ACKs++
		t.st.DLLPBytes += DLLPBytes
	}
	for t.sent >= t.fcAt || (forced && t.owedFC) {
		if t.sent >= t.fcAt {
			t.fcAt += t.interval
		} else {
			t.fcAt = t.sent + t.interval
		}
		if t.owedFC {
			b.hasFC = true
			b.fc, b.fcCls = t.fcRet, t.fcCls
			t.fcRet, t.fcCls = [classCount][2]uint64{}, 0
			t.owedFC = false
		}
		n += DLLPBytes
		t.st.UpdateFCs++
		t.st.DLLPBytes += DLLPBytes
	}
	t.setDue()
	return n
}

// setDue sets dueAt, the earliest mark of link traffic, after a mark
// moved.
func (t *tx) setDue() { t.dueAt = min(t.ackAt, t.fcAt, t.skpAt) }

func (t *tx) end(now sim.Tick) {
	t.peer.settleArrivals() // the peer's quiet arrivals before now are this one's bookkeeping
	t.busy = false
	if t.latency == 0 {
		t.fin = t.cur.b
		t.arrive(now, &t.fin, false)
	} else {
		t.launch(now)
	}
	t.start(now, false)
	if !t.busy {
		t.meter.Set(now, 0)
		t.lit = false
		t.peer.wakeQuiet()
	}
}
