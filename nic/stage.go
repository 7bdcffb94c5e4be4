package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// item is what moves between pipeline stages: a work request named by its
// QP and index (the request's fields are in the QP's slot). Small value
// messages, no pointers, no closures.
type item struct {
	qp  uint32
	idx uint64
}

// block is the shape every clocked NIC block shares: a hierarchical name,
// a driver on the NIC clock, and its StageSpec in ticks. Its capacity is
// ItemsPerCycle items per IntervalCycles; nextAccept is the first time it
// may accept again.
type block struct {
	name       string
	meter      *sim.Meter // ItemsPerCycle units, each busy IntervalCycles per item taken
	drv        *sim.TickDriver
	period     sim.Tick
	latency    sim.Tick // LatencyCycles
	interval   sim.Tick
	ipc        int
	nextAccept sim.Tick
}

// newBlock times t by sp on the adapter's clock; its meter (named as the
// block) counts the items it takes against its throughput.
func (a *Adapter) newBlock(name string, sp StageSpec, t sim.Ticker) block {
	p := a.clock.Period
	return block{name: name, meter: a.meter(name, "items/interval", uint64(sp.ItemsPerCycle)),
		drv: sim.NewTickDriver(name, a.clock, a.eng, t), period: p,
		latency: sim.Tick(sp.LatencyCycles) * p, interval: sim.Tick(sp.IntervalCycles) * p, ipc: int(sp.ItemsPerCycle)}
}

// wakeFor asks for a tick at next. stalls: that tick can only find the
// queue full (unless a wake comes first), so it is reserved (WakeIdle) and
// a pop from full will wake the block.
func (b *block) wakeFor(next sim.Tick, stalls bool, full *sim.Port[item]) {
	if !stalls {
		b.drv.WakeAt(next)
		return
	}
	full.WatchSpace()
	b.drv.WakeIdle(next)
}

// took records n items taken at now: each holds one of the block's
// ItemsPerCycle slots for IntervalCycles.
func (b *block) took(now sim.Tick, n int) {
	b.nextAccept = now + b.interval
	b.meter.BusyN(now, b.nextAccept, uint64(n))
}

// stageWork is what one pipeline stage does; the stage shell does the
// timing, the order and the statistics.
type stageWork interface {
	// accept starts the work on m. acceptSync: done, the item leaves after
	// the stage latency. acceptAsync: the work has started a DMA or TPT
	// request whose completion is the stage itself (sim.Handler) with arg
	// s.nextSlot(); the latency runs from then. acceptStall: it cannot
	// start now; what blocks it wakes s.drv.
	accept(s *stage, m item, now sim.Tick) acceptResult
}

type acceptResult uint8

const (
	acceptSync acceptResult = iota
	acceptAsync
	acceptStall
)

// inflight is an item in flight in a stage: 32 B, two to a cache line.
type inflight struct {
	idx     uint64 // the item's request index
	readyAt sim.Tick
	start   sim.Tick
	qp      uint32 // the item's QP
	waiting bool
}

// stage is the shell of one pipeline stage around its work: a bounded input
// port, a latency and a throughput in cycles, and a bounded set of items in
// flight that leave in order. Ports between stages have a latency of one
// cycle, so an item moves at most one stage per cycle; an item accepted at
// cycle c is visible to the next stage at c+LatencyCycles.
type stage struct {
	block
	work    stageWork
	sink    func(item, sim.Tick) // takes the items when out is nil
	in      *sim.Port[item]      // from the stage before
	out     *sim.Port[item]      // to the stage after; nil: sink
	hold    sim.Tick             // LatencyCycles-1 cycles: the port adds the last one
	fl      []inflight           // a power of two of records, at least depth
	flMask  int                  // len(fl)-1
	depth   int                  // items in flight at most
	head, n int
	// headAt is when the head item may leave (headTime): its readyAt, or
	// MaxTick while it waits for its request or no item is in flight.
	headAt     sim.Tick
	waitingN   int // async items outstanding
	stallSince sim.Tick
	stalled    bool
	st         *StageStats
	// waits, when set, meters the async items outstanding (a stage whose
	// work waits for a limited number of DMA reads: the page-list fetch).
	waits *sim.Meter
	// blocked, when set, meters the time the stage is full while its head
	// item waits for its request (an in-order stage that its own reads
	// block: validate): it can take nothing until that request completes.
	blocked   *sim.Meter
	isBlocked bool // the blocked meter's level is 1
	// writeStall: the reserved idle tick's accept finds no TPT write slot
	// (reserveWriteStall, writeStallsAt).
	writeStall   bool
	writer       tptWriteWork // work, when its items may need a TPT write slot
	writes       *tptWriters  // the TPT's write slots, when writer is set
	writerEngine int          // the engine a writer belongs to (tptWriters.add)
	tptWaiting   bool         // a writer's head item waits for a TPT write slot (tptWriters.stageWaits)
}

var _ sim.Handler = (*stage)(nil)
var _ sim.WakeIdler = (*stage)(nil)
var _ sim.QuietTicker = (*stage)(nil)

// depth is the items a stage of s holds in flight at most, at least
// depthMin: enough to take ItemsPerCycle items every IntervalCycles while
// each stays LatencyCycles. An item taken at cycle c leaves at c+L-1 (the
// port to the next stage adds the last cycle; stage.hold), before the
// stage takes new items in that cycle, so ceil((L-1)/I) batches of
// ItemsPerCycle are in flight as one more is taken; and at least one
// batch. It is never below L x ItemsPerCycle / I, the count it was sized
// by before, so no stage holds fewer items than it did.
func (s StageSpec) depth(depthMin uint64) uint64 {
	l, ipc, iv := uint64(s.LatencyCycles), uint64(s.ItemsPerCycle), max(uint64(s.IntervalCycles), 1)
	batches := max((max(l, 1)-1+iv-1)/iv, 1)
	return max(l*ipc/iv, batches*ipc, depthMin)
}

// newStage builds the stage prefix+kind doing work, timed by spec, with
// room for at least depthMin items in flight. Its statistics are
// NIC.Stage.<kind>, shared by the stages of that kind on every engine.
func (a *Adapter) newStage(prefix, kind string, spec StageSpec, work stageWork, depthMin int) *stage {
	depth := int(spec.depth(uint64(max(depthMin, 0))))
	s := &stage{work: work, fl: make([]inflight, ringSlots(uint64(depth))), depth: depth, st: a.Stats.stage(kind)}
	s.flMask = len(s.fl) - 1
	s.block = a.newBlock(prefix+kind, spec, s)
	if s.writer, _ = work.(tptWriteWork); s.writer != nil {
		s.writes = &a.tptWrites
	}
	s.hold = s.latency - s.period
	s.headAt = sim.MaxTick
	s.in = sim.MustNewPort[item](s.name+".In", a.eng, int(spec.QueueDepth), s.period)
	a.stages = append(a.stages, s)
	return s
}

// settle brings every stage's and the WQE fetch's state and statistics up
// to now: a reserved idle tick whose place has passed ran
// (sim.TickDriver.Settle), and the transmit buffer's packets that have
// left by now have freed their bytes.
func (a *Adapter) settle() {
	for _, s := range a.stages {
		s.drv.Settle()
	}
	if a.fetch != nil {
		a.fetch.drv.Settle()
	}
	a.req.tx.settle(a.eng.Now())
	a.resp.tx.settle(a.eng.Now())
}

// Tick emits finished items in order, then accepts new ones. Each loop
// counts its ItemsPerCycle after an item, not before the first: most
// stages take one item a cycle, and a tick that emits or takes nothing
// then tests no count. The two loops stay in one function: split into
// emit and accept calls, every stage's tick paid for them (measured: 47 M
// more instructions, 3 %, on the 2 ms quickstart).
func (s *stage) Tick(now sim.Tick) bool {
	s.writeStall = false // a wake made the reserved tick real
	// Emit up to ItemsPerCycle finished items, in order.
	for left := s.ipc; s.headAt <= now; {
		// headAt <= now: an item is in flight, the DMA or TPT request
		// it may have made has completed, and its latency has passed
		// (headTime).
		h := &s.fl[s.head]
		if s.out != nil && !s.out.CanSend() {
			if !s.stalled {
				s.stalled, s.stallSince = true, now
				s.st.OutStalls++
			}
			break
		}
		d := uint64(now - s.stallSince) // waited for the queue, if stalled
		if !s.stalled {
			d = 0 // a conditional move, not a branch
		}
		m := item{qp: h.qp, idx: h.idx}
		s.stalled, s.st.StallPS = false, s.st.StallPS+d
		s.st.Items++
		s.st.ResidencyPS += uint64(now + s.period - h.start)
		// The in-flight records are a power of two: the head wraps by a mask.
		s.head = (s.head + 1) & s.flMask
		s.n--
		if s.out == nil {
			s.sink(m, now)
		} else if err := s.out.Send(m); err != nil {
			panic(err)
		}
		if s.headAt = s.headTime(); left == 1 {
			break
		}
		left--
	}
	// Accept up to ItemsPerCycle items on an accepting cycle with room.
	accepted, resourceStall := 0, false
	for now >= s.nextAccept && s.n < s.depth {
		m, ok := s.in.PeekAt(now)
		if !ok {
			break
		}
		r := s.work.accept(s, m, now)
		if r == acceptStall {
			s.st.AcceptStalls++
			resourceStall = true
			break
		}
		s.in.Drop()
		f := &s.fl[s.nextSlot()]
		f.idx, f.qp, f.readyAt, f.start, f.waiting = m.idx, m.qp, now+s.hold, now, r == acceptAsync
		if s.n++; r == acceptAsync {
			s.addWaiting(now, 1)
		} else if s.n == 1 { // a sync item taken by an empty stage is its head
			s.headAt = f.readyAt
		}
		if accepted++; accepted == s.ipc {
			break
		}
	}
	if accepted > 0 {
		s.took(now, accepted)
	}
	if s.blocked != nil {
		s.meterBlocked(now)
	}
	s.wakeNext(now, resourceStall)
	return false
}

// wakeNext asks for the stage's next tick after the tick at now: for its
// head item, or to accept (unless a busy resource refused the last try:
// what frees it wakes the stage). A tick that can only stall is reserved
// (WakeIdle).
func (s *stage) wakeNext(now sim.Tick, resourceStall bool) {
	next, n, depth := sim.MaxTick, s.n, s.depth
	s.checkHeadAt()
	if s.headAt != sim.MaxTick && !s.stalled {
		// Unless there is none, or it waits for its DMA completion or
		// for the output port (which wake the stage), the head item is
		// due at its readyAt, an edge, or at the next edge when it is
		// ready now. headAt is that readyAt, or MaxTick (headTime).
		next = max(s.headAt, now+s.period)
	}
	// Or to accept, unless a busy resource refused the last try.
	if !resourceStall && n < depth && s.in.Len() > 0 {
		next = min(next, max(s.nextAccept, s.in.NextVisible(), now+s.period))
	}
	if next == sim.MaxTick {
		return
	}
	switch {
	case n == depth && s.stallsAt(next):
	case s.writer != nil && s.out.Len() == s.out.Cap() && s.writeStallsAt(next): // the full queue first: no call most ticks
		s.writeStall = true
	default:
		s.drv.WakeAt(next) // the usual case, without wakeFor's call
		return
	}
	s.out.WatchSpace() // wakeFor(next, true, s.out), written out
	s.drv.WakeIdle(next)
}

// writeStallsAt reports whether the tick at next, unless something wakes
// the stage first, can only find its head item's output queue full and no
// TPT write slot for the item it would accept: its head item is ready by
// then and its output queue full now, and the TPT has no free write slot
// now. A pop from the queue, a freed slot or any other wake before then
// makes it a real tick. With several engines such ticks stay real: the
// refusal makes the engine wait its turn (tptWriters.mayWrite).
func (s *stage) writeStallsAt(next sim.Tick) bool {
	w := s.writer
	if w == nil || s.n == 0 || s.n == s.depth || next < s.nextAccept || s.out.Len() < s.out.Cap() || s.writes.slotFree() || s.writes.engines > 1 {
		return false
	}
	if s.headAt > next {
		return false
	}
	m, ok := s.in.Peek()
	return ok && w.needsWrite(m)
}

// stallsAt reports whether the tick at next, unless something wakes the
// stage first, can only find its head item's output queue full: the stage
// is full (it accepts nothing) and the queue is full now. A pop from the
// queue or any other wake before then makes it a real tick.
func (s *stage) stallsAt(next sim.Tick) bool {
	if s.out == nil || s.stalled || s.n < s.depth || s.out.Len() < s.out.Cap() {
		return false
	}
	return s.headAt <= next
}

// IdleTick is the tick stallsAt foresaw, which nothing woke the stage
// before: the head item found the output queue full (its CanSend refused,
// the sender already registered for space by WatchSpace); or the one
// reserveWriteStall reserved: its accept found no TPT write slot. It runs when
// the stage is next woken or its statistics read, so it reads no state
// that may have changed since.
func (s *stage) IdleTick(now sim.Tick) {
	if s.headAt <= now {
		s.outStall(now)
	}
	if s.writeStall {
		s.countWriteStall()
	}
}

// outStall counts an idle tick whose head item found the output queue
// full.
func (s *stage) outStall(now sim.Tick) {
	s.out.Refused++
	if !s.stalled {
		s.stalled, s.stallSince = true, now
		s.st.OutStalls++
	}
}

// countWriteStall counts the stall of an accept that found no TPT write
// slot (reserveWriteStall).
func (s *stage) countWriteStall() {
	s.writeStall = false
	s.st.AcceptStalls++
	s.writes.countStall()
}

// IdleOnWake reports whether a tick at the edge of now can only do what
// IdleTick does: the stage is full (it accepts nothing, whatever arrives)
// and stalled, its head item ready and its output queue full (the stage is
// registered for the pop that frees it). Until that pop wakes the stage,
// a wake by an arriving message, a completion of another item or a freed
// TPT slot does that bookkeeping only.
func (s *stage) IdleOnWake(now sim.Tick) bool {
	return s.stalled && s.n == s.depth && s.out.Len() == s.out.Cap() && s.headAt <= now
}

// IdleTickOnWake is IdleTick(at) then IdleOnWake(now), for a wake that
// finds the tick IdleTick stands for passed.
func (s *stage) IdleTickOnWake(at, now sim.Tick) bool {
	s.checkHeadAt()
	// IdleTick and IdleOnWake, written out: a call would cost more than
	// their lines.
	if s.headAt <= at {
		s.outStall(at)
	}
	if s.writeStall {
		s.countWriteStall()
	}
	return s.stalled && s.n == s.depth && s.out.Len() == s.out.Cap() && s.headAt <= now
}

// QuietAt reports whether a tick at at, before the pending tick at
// pending, would do nothing and ask for the pending tick again: no item
// to emit or stalled, none it may take (in its accept interval, full, or
// nothing visible), and the tick it would ask for is the pending one.
// Until at, only a message arriving by then, a completion or a freed
// queue changes that, and each of those wakes the stage.
func (s *stage) QuietAt(at, pending sim.Tick) bool {
	s.checkHeadAt()
	if s.stalled {
		return false
	}
	next := s.headAt // MaxTick: no item, or it waits for its request
	if next <= at {
		return false
	}
	if s.n < s.depth && s.in.Len() > 0 {
		vis := s.in.NextVisible()
		if at >= s.nextAccept && vis <= at {
			return false
		}
		next = min(next, max(s.nextAccept, vis, at+s.period))
	}
	return next == pending && !s.stallsAt(next)
}

// reserveWriteStall: the TPT's last write slot has just been taken at
// now. If the tick this stage has queued for now, not run yet, has no
// item in flight and will try to accept one that needs a write slot, it
// can only stall and ask for no other tick; unless a freed slot or
// anything else wakes the stage first, it is reserved
// (sim.TickDriver.ReserveIdle) and its stall counted by IdleTick; not with
// several engines (writeStallsAt).
func (s *stage) reserveWriteStall(now sim.Tick) {
	w := s.writer
	if w == nil || s.n > 0 || now < s.nextAccept || s.writes.engines > 1 {
		return
	}
	if m, ok := s.in.PeekAt(now); ok && w.needsWrite(m) {
		if s.writeStall = s.drv.ReserveIdle(); s.writeStall {
			s.writes.stageWaits(s, now, true)
		}
	}
}

// checkHeadAt, in builds with invariants, checks that headAt is what
// headTime says.
func (s *stage) checkHeadAt() {
	if sim.Invariants && s.headAt != s.headTime() {
		panic(fmt.Sprintf("nic: invariant: %s: headAt %v, head item due at %v", s.name, s.headAt, s.headTime()))
	}
}

// addWaiting counts d more async items outstanding at now.
func (s *stage) addWaiting(now sim.Tick, d int) {
	s.waitingN += d
	if s.waits != nil {
		s.waits.Set(now, uint64(s.waitingN))
	}
}

// headTime is when the head item may leave: its readyAt, or MaxTick while
// it waits for its request or no item is in flight.
func (s *stage) headTime() sim.Tick {
	if s.n == 0 || s.fl[s.head].waiting {
		return sim.MaxTick
	}
	return s.fl[s.head].readyAt
}

// nextSlot is the in-flight slot the item being accepted will take
// (the completion argument of an async accept).
func (s *stage) nextSlot() uint64 {
	return uint64((s.head + s.n) & s.flMask)
}

// Handle ends the wait of the item in slot arg: its DMA or TPT request
// completed.
func (s *stage) Handle(now sim.Tick, arg uint64) {
	f := &s.fl[arg]
	if !f.waiting {
		panic(fmt.Sprintf("nic: %s: completion for slot %d that is not waiting", s.name, arg))
	}
	f.waiting = false
	s.addWaiting(now, -1)
	f.readyAt = max(f.readyAt, s.drv.Clock().NextEdge(now)+s.hold)
	if int(arg) == s.head {
		s.headAt = f.readyAt
		if s.blocked != nil {
			s.meterBlocked(now)
		}
	}
	s.drv.Wake()
}

// meterBlocked sets the blocked meter when its level changes: 1 while the
// stage is full and its head item waits for its request. Most ticks leave
// it as it was, and pay one test.
func (s *stage) meterBlocked(now sim.Tick) {
	if b := s.n == s.depth && s.fl[s.head].waiting; b != s.isBlocked {
		s.isBlocked = b
		s.setBlocked(now, b)
	}
}

// setBlocked gives the blocked meter its new level, out of line.
func (s *stage) setBlocked(now sim.Tick, b bool) {
	var v uint64
	if b {
		v = 1
	}
	s.blocked.Set(now, v)
}
