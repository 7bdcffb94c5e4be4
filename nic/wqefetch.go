package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// wqeFetch is the WQE fetch engine. It takes fetch requests from the
// scheduler and reads the WQEs of each with one DMA read of their basic
// blocks (contiguous in the SQ ring: the scheduler never lets a request
// cross the ring's end), at most WQEFetchOutstandingMax reads in flight.
// WQEs that arrived by WQE-by-MMIO need no read. WQEFetch.LatencyCycles
// after the data is on the NIC, the fetch's WQEs go, in order, to the QP's
// execution engine, WQEFetch.ItemsPerCycle per cycle.
type wqeFetch struct {
	block
	a       *Adapter
	reads   *sim.Meter // WQE reads waiting for their data
	reading int
	in      *sim.Port[fetchReq]
	slots   []fetchSlot
	free    []uint32
	ready   sim.FIFO[uint32] // slots whose data is on the NIC, in arrival order
	// stallPort is the engine queue a reserved stall tick found full.
	stallPort *sim.Port[item]
}

type fetchSlot struct {
	req     fetchReq
	next    uint32 // next WR of the request to hand on
	readyAt sim.Tick
}

var _ sim.Handler = (*wqeFetch)(nil)
var _ sim.IdleTicker = (*wqeFetch)(nil)

func newWQEFetch(a *Adapter) *wqeFetch {
	n := a.spec.WQEFetchOutstandingMax
	f := &wqeFetch{a: a, slots: make([]fetchSlot, n)}
	for i := range f.slots {
		f.free = append(f.free, n-1-uint32(i))
	}
	f.block = a.newBlock(a.name+".WQEFetch", a.spec.WQEFetch, f)
	f.reads = a.meter(f.name+".Reads", "reads", uint64(n))
	f.reads.TrackWaits()
	f.in = a.sched.out
	f.in.Connect(a.sched.drv, f.drv)
	return f
}

// Tick hands fetched WQEs to the engines, then starts new fetches.
func (f *wqeFetch) Tick(now sim.Tick) bool {
	next := f.handOn(now)
	for len(f.free) > 0 {
		r, ok := f.in.PeekAt(now)
		if !ok {
			break
		}
		if r.mmio {
			f.in.Drop()
			id := f.take(r)
			f.slots[id].readyAt = now + f.latency
			f.ready.Push(id)
			next = min(next, now+f.latency)
			continue
		}
		if !f.a.dma.CanAcceptRead() {
			f.a.dma.AddWaker(f.drv)
			f.a.Stats.FetchDMAStalls++
			break
		}
		f.in.Drop()
		f.read(r, f.take(r))
	}
	f.meterWaits(now)
	if next != sim.MaxTick {
		stalls := f.stallsAt(next) // sets stallPort
		f.wakeFor(next, stalls, f.stallPort)
	}
	return false
}

// stallsAt reports whether the tick at next, unless something wakes the
// fetch first, can only find the engine queue of its first ready WQE full:
// every slot is taken (it accepts no request) and that queue is full now.
// A pop from the queue, a read completing or any other wake before then
// makes it a real tick.
func (f *wqeFetch) stallsAt(next sim.Tick) bool {
	if len(f.free) > 0 || f.ready.Len() == 0 || next < f.nextAccept {
		return false
	}
	sl := &f.slots[f.ready.Peek()]
	port := f.a.engines[f.a.qps[sl.req.qp].engine].first.in
	if sl.readyAt > next || port.Len() < port.Cap() {
		return false
	}
	f.stallPort = port
	return true
}

// IdleTick is the tick stallsAt foresaw, which nothing woke the fetch
// before: its first ready WQE found the engine queue full (CanSend refused,
// the fetch registered for space by WatchSpace).
func (f *wqeFetch) IdleTick(sim.Tick) {
	f.stallPort.Refused++
	f.a.Stats.FetchStalls++
}

// handOn sends up to ItemsPerCycle fetched WQEs to their engines, in
// order; it returns when it must tick next for them (MaxTick: woken).
func (f *wqeFetch) handOn(now sim.Tick) sim.Tick {
	if now < f.nextAccept {
		return f.nextAccept
	}
	next, sent := f.send(now)
	if sent > 0 {
		f.took(now, sent)
	}
	return next
}

// send is handOn on an accepting cycle; it also returns how many WQEs it
// sent.
func (f *wqeFetch) send(now sim.Tick) (sim.Tick, int) {
	a := f.a
	sent := 0
	for f.ready.Len() > 0 && sent < f.ipc {
		id := f.ready.Peek()
		sl := &f.slots[id]
		if sl.readyAt > now {
			return sl.readyAt, sent
		}
		qp := a.qps[sl.req.qp]
		port := a.engines[qp.engine].first.in
		if !port.CanSend() {
			a.Stats.FetchStalls++
			return sim.MaxTick, sent
		}
		idx := sl.req.first + uint64(sl.next)
		qp.slot(idx).tFetched = now
		if err := port.Send(item{qp: qp.num, idx: idx}); err != nil {
			panic(err)
		}
		sent++
		sl.next++
		if sl.next == sl.req.count {
			f.ready.Drop()
			*sl = fetchSlot{}
			f.free = append(f.free, id)
			qp.setFetching(now, false)
			a.sched.activate(qp)
		}
	}
	if sent == f.ipc && f.ready.Len() > 0 {
		return max(now+f.interval, now+f.period), sent
	}
	return sim.MaxTick, sent
}

// read starts the DMA read of request r's WQEs into slot id.
func (f *wqeFetch) read(r fetchReq, id uint32) {
	a := f.a
	qp := a.qps[r.qp]
	var bytes uint64
	for i := uint64(0); i < uint64(r.count); i++ {
		x := qp.slot(r.first + i)
		bytes += uint64(x.blocks) * uint64(a.spec.WQEBytes)
		a.Stats.addBytes(x.kind, purposeWQE, uint64(x.blocks)*uint64(a.spec.WQEBytes))
	}
	addr := qp.sqAddr + (qp.slot(r.first).block%qp.ringBlocks)*uint64(a.spec.WQEBytes)
	if err := a.dma.Read(addr, bytes, f, uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", a.name, err))
	}
	a.Stats.WQEFetches++
	a.Stats.WQEsFetched += uint64(r.count)
	qp.fetchReading(a.eng.Now(), true)
	f.reading++
	f.reads.Set(a.eng.Now(), uint64(f.reading))
}

// meterWaits tells the Reads meter whether a fetch request waits for a
// slot: every slot is taken and a request is at the port.
func (f *wqeFetch) meterWaits(now sim.Tick) {
	waiting := false
	if len(f.free) == 0 {
		_, waiting = f.in.PeekAt(now)
	}
	f.reads.Waits(now, waiting)
}

func (f *wqeFetch) take(r fetchReq) uint32 {
	id := f.free[len(f.free)-1]
	f.free = f.free[:len(f.free)-1]
	f.slots[id] = fetchSlot{req: r, readyAt: sim.MaxTick}
	return id
}

// Handle runs when the WQE read of slot arg has arrived.
func (f *wqeFetch) Handle(now sim.Tick, arg uint64) {
	f.reading--
	f.reads.Set(now, uint64(f.reading))
	f.a.qps[f.slots[arg].req.qp].fetchReading(now, false)
	f.slots[arg].readyAt = f.drv.Clock().NextEdge(now) + f.latency
	f.ready.Push(uint32(arg))
	f.drv.Wake()
}
