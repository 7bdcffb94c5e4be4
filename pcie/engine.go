package pcie

import (
	"math/bits"

	"github.com/nicsim/nicsim/sim"
)

// path is one request path of the NIC's DMA engine: reads or writes. A
// request waits in a bounded queue for one of the path's channels. A
// channel starts on a NIC clock edge and works on one request at a time:
// RequestCycles before the request's first TLP is ready, then TLPsPerCycle
// TLPs a cycle, so a request of n TLPs holds its channel
// RequestCycles + ceil(n/TLPsPerCycle) - 1 cycles. The request enters the
// path's lane when its channel starts; the lane hands TLPs to the upstream
// transmitter in request order as they become ready (posted writes stay in
// order; reads keep it too). A request leaves the queue's count when its
// last TLP is taken by the transmitter.
//
// MSI-X goes through the write path at no cost, so it follows the writes
// requested before it.
type path struct {
	d      *DMA
	eng    *sim.Engine // the link's, and
	up     *tx         // its upstream transmitter, without going through d
	addr64 bool        // the link's Spec.Addr64
	write  bool
	depth  int // requests accepted and not yet fully taken by the link, at most
	queued int // such requests now (MSI-X excluded)
	// reqs holds the path's requests in order: the oldest `lane` started
	// on a channel and are in the lane, the rest wait for one. A request
	// only moves from waiting to the lane, oldest first, so one ring holds
	// both.
	reqs      sim.FIFO[uint32]
	lane      int
	channels  int
	busy      int // channels working
	clock     sim.ClockDomain
	reqTicks  sim.Tick   // RequestCycles as time
	perCycle  uint64     // TLPs a channel cuts per cycle
	unit      uint64     // TLP boundary: MPS for writes, MRRS for reads
	unitShift uint       // log2(unit)
	meter     *sim.Meter // channels in use
	freeEv    channelFree
	scratch   tlp
	// The ends of busy channels whose events are reserved, not queued, in
	// order: with no request waiting, a channel's end only lowers the
	// level of the meter. They are queued at their keys as soon as a
	// request waits, and counted (settle) when their place has passed.
	// The first is end (while endSet), the others frees[freeHead:]: one
	// pending end is the usual case, and a field spares it the slice's
	// bookkeeping.
	end      sim.Key
	endSet   bool
	frees    []sim.Key
	freeHead int // frees[:freeHead] are counted already
}

// channelFree is a channel of p finishing its request.
type channelFree struct{ p *path }

func (e channelFree) Handle(now sim.Tick, arg uint64) {
	p := e.p
	p.settle()
	p.busy--
	// startNext sets the meter's level at now.
	p.startNext(now)
}

// channelEnd is the end of a channel started now, at at: an event when a
// request waits for a channel, otherwise a reserved place (frees).
func (p *path) channelEnd(at sim.Tick) {
	eng := p.eng
	k := eng.Reserve(at, sim.PrioDefault)
	if p.waiting() || !eng.Virtual(k) {
		eng.ScheduleKey(k, p.freeEv, 0)
		return
	}
	if !p.endSet {
		p.end, p.endSet = k, true
		return
	}
	if k.Before(p.end) {
		k, p.end = p.end, k // end stays the first
	}
	if p.freeHead > 0 && len(p.frees) == cap(p.frees) {
		n := copy(p.frees, p.frees[p.freeHead:])
		p.frees, p.freeHead = p.frees[:n], 0
	}
	i := len(p.frees)
	p.frees = append(p.frees, k)
	if i == p.freeHead || !k.Before(p.frees[i-1]) {
		return // the usual case: ends come in order
	}
	for ; i > p.freeHead && k.Before(p.frees[i-1]); i-- {
		p.frees[i] = p.frees[i-1]
	}
	p.frees[i] = k
}

// settle counts the reserved channel ends whose place has passed: each
// frees its channel at its time.
func (p *path) settle() {
	for p.endSet && p.eng.Passed(p.end) {
		p.busy--
		p.meter.Set(p.end.At(), uint64(p.busy))
		p.nextEnd()
	}
}

// nextEnd drops the first reserved channel end: the next, if any, becomes
// the first.
func (p *path) nextEnd() {
	if p.freeHead == len(p.frees) {
		p.endSet = false
		return
	}
	p.end = p.frees[p.freeHead]
	p.freeHead++
	if p.freeHead == len(p.frees) {
		p.frees, p.freeHead = p.frees[:0], 0
	}
}

// queueFrees queues the reserved channel ends at their places: a request
// waits for a channel.
func (p *path) queueFrees() {
	p.eng.ScheduleKey(p.end, p.freeEv, 0)
	for _, k := range p.frees[p.freeHead:] {
		p.eng.ScheduleKey(k, p.freeEv, 0)
	}
	p.endSet, p.frees, p.freeHead = false, p.frees[:0], 0
}

func newPath(d *DMA, write bool, clock sim.ClockDomain) path {
	s := d.l.spec
	p := path{d: d, eng: d.l.eng, up: d.l.up, addr64: s.Addr64, write: write, clock: clock}
	if write {
		p.depth, p.channels, p.unit = s.DMAWriteQueueDepth, s.DMAWriteChannels, uint64(s.MPSBytes)
		p.reqTicks, p.perCycle = clock.CyclesToTicks(sim.Cycles(s.WriteRequestCycles)), uint64(s.WriteTLPsPerCycle)
	} else {
		p.depth, p.channels, p.unit = s.DMAReadQueueDepth, s.DMAReadChannels, uint64(s.MRRSBytes)
		p.reqTicks, p.perCycle = clock.CyclesToTicks(sim.Cycles(s.ReadRequestCycles)), uint64(s.ReadTLPsPerCycle)
	}
	p.unitShift = uint(bits.TrailingZeros64(p.unit)) // MPS and MRRS are powers of two
	return p
}

// cycles is the cycles a channel takes to cut k TLPs after its first:
// k/TLPsPerCycle.
func (p *path) cycles(k uint64) sim.Cycles {
	if p.perCycle == 1 {
		return sim.Cycles(k)
	}
	return sim.Cycles(k / p.perCycle)
}

// tlps is the number of TLPs a request of bytes at addr is cut into: one
// per unit-aligned block it touches.
func (p *path) tlps(addr, bytes uint64) uint64 {
	sh := p.unitShift & 63 // < 64: the mask spares the test of a shift past the width
	return (addr+bytes-1)>>sh - addr>>sh + 1
}

// waiting reports whether a request waits for a channel.
func (p *path) waiting() bool { return p.reqs.Len() > p.lane }

// enqueue adds request i and starts it if a channel is free.
func (p *path) enqueue(now sim.Tick, i uint32) {
	p.reqs.Push(i)
	p.startNext(now)
}

// startNext gives waiting requests to free channels, each starting on the
// next NIC clock edge (at once when a request costs no cycles, as in
// IdealSpec).
func (p *path) startNext(now sim.Tick) {
	if p.endSet {
		p.settle()
	}
	started := false
	for p.waiting() && p.busy < p.channels {
		i := *p.reqs.Slot(p.lane)
		p.lane++ // enters the lane
		r := &p.d.reqs[i]
		s := now
		if p.reqTicks > 0 {
			s = p.clock.NextEdge(now)
		}
		hold := sim.Tick(0)
		if !r.msix {
			n := p.tlps(r.addr, r.bytes)
			hold = p.reqTicks + p.clock.CyclesToTicks(p.cycles(n-1))
		}
		r.cutAt = s
		if !r.msix {
			r.cutAt += p.reqTicks
		}
		r.seq = p.up.nextSeq()
		started = true
		if free := s + hold; free > now {
			p.busy++
			p.channelEnd(free)
		}
	}
	if p.waiting() && p.endSet {
		p.queueFrees()
	}
	p.meter.Set(now, uint64(p.busy))
	if started {
		p.up.kick()
	}
}

// ready is when the next TLP of the lane's head request may go: its k-th
// TLP is cut floor(k/TLPsPerCycle) cycles after the first.
func (p *path) ready(r *dmaReq) sim.Tick {
	return r.cutAt + p.clock.CyclesToTicks(p.cycles(r.taken))
}

// peek offers the lane's next TLP: an MWr of at most MPS or an MRd of at
// most MRRS, on naturally aligned boundaries; an MRd also needs a free tag.
// An empty lane is answered inline.
func (p *path) peek(now sim.Tick) (*tlp, sim.Tick) {
	if p.lane == 0 {
		return nil, sim.MaxTick
	}
	return p.peekHead(now)
}

func (p *path) peekHead(now sim.Tick) (*tlp, sim.Tick) {
	d := p.d
	i := p.reqs.Peek()
	r := &d.reqs[i]
	if at := p.ready(r); at > now {
		return nil, at
	}
	cur := r.addr + r.off
	n := min(r.bytes-r.off, p.unit-cur&(p.unit-1))
	// A 4DW header only for an address at or above 4 GiB: below, the
	// spec requires the 3DW form (PCIe Base Spec 2.2.4.1), as for MSI-X.
	hdr4 := p.addr64 && cur>>32 != 0
	if p.write {
		p.scratch.set(KindMWr, classP, hdr4, r.off+n == r.bytes, r.msix,
			n, 0, cur, 0, i, r.seq)
		return &p.scratch, 0
	}
	if !d.tagFree(now) {
		return nil, sim.MaxTick
	}
	p.scratch.set(KindMRd, classNP, hdr4, r.off+n == r.bytes, false,
		0, n, cur, 0, i, r.seq)
	return &p.scratch, 0
}

// take commits the TLP peek offered: it starts on the wire.
func (p *path) take(now sim.Tick, t *tlp) {
	d := p.d
	r := &d.reqs[t.ref]
	if p.write {
		r.off += t.payload
	} else {
		d.takeTag(now, t)
		r.off += t.reqBytes
	}
	r.taken++
	if !t.last {
		return
	}
	p.reqs.Drop() // a slot index holds no pointer
	p.lane--
	if !r.msix {
		p.queued--
		d.roomFreed()
	}
	if r.sent != nil {
		h := r.sent
		r.sent = nil
		h.Handle(now, r.sentArg)
	}
}
