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
	a       *Adapter
	drv     *sim.TickDriver
	in      *sim.Port[fetchReq]
	slots   []fetchSlot
	free    []uint32
	ready   []uint32 // slots whose data is on the NIC, in arrival order
	latency sim.Tick
	ipc     int
}

type fetchSlot struct {
	req     fetchReq
	next    uint32 // next WR of the request to hand on
	readyAt sim.Tick
	busy    bool
}

var _ sim.Ticker = (*wqeFetch)(nil)

func newWQEFetch(a *Adapter) *wqeFetch {
	sp := a.spec.WQEFetch
	n := a.spec.WQEFetchOutstandingMax
	f := &wqeFetch{a: a, slots: make([]fetchSlot, n), latency: sim.Tick(sp.LatencyCycles) * a.clock.Period, ipc: int(sp.ItemsPerCycle)}
	for i := range f.slots {
		f.free = append(f.free, n-1-uint32(i))
	}
	f.drv = sim.NewTickDriver(a.name+".WQEFetch", a.clock, a.eng, f)
	f.in = a.sched.out
	f.in.Connect(a.sched.drv, f.drv)
	return f
}

// Tick hands fetched WQEs to the engines, then starts new fetches.
func (f *wqeFetch) Tick(now sim.Tick) bool {
	a := f.a
	next := sim.MaxTick
	// Hand on.
	sent := 0
	for len(f.ready) > 0 && sent < f.ipc {
		id := f.ready[0]
		sl := &f.slots[id]
		if sl.readyAt > now {
			next = sl.readyAt
			break
		}
		qp := a.qps[sl.req.qp]
		port := a.engines[qp.engine].parse.in
		if !port.CanSend() {
			a.Stats.FetchStalls++
			break
		}
		idx := sl.req.first + uint64(sl.next)
		qp.slot(idx).tFetched = now
		if err := port.Send(item{qp: qp.num, idx: idx}); err != nil {
			panic(err)
		}
		sent++
		sl.next++
		if sl.next == sl.req.count {
			f.ready = f.ready[1:]
			*sl = fetchSlot{}
			f.free = append(f.free, id)
			qp.fetchBusy = false
			a.sched.activate(qp)
		}
	}
	if sent == f.ipc && len(f.ready) > 0 {
		next = min(next, now+a.clock.Period)
	}
	// Start fetches.
	for len(f.free) > 0 {
		r, ok := f.in.Peek()
		if !ok {
			break
		}
		qp := a.qps[r.qp]
		if r.mmio {
			f.in.Pop()
			id := f.take(r)
			f.slots[id].readyAt = now + f.latency
			f.ready = append(f.ready, id)
			next = min(next, now+f.latency)
			continue
		}
		if !a.dma.CanAccept() {
			a.dma.AddWaker(f.drv)
			a.Stats.FetchDMAStalls++
			break
		}
		f.in.Pop()
		id := f.take(r)
		w := qp.slot(r.first)
		var bytes uint64
		for i := uint64(0); i < uint64(r.count); i++ {
			x := qp.slot(r.first + i)
			bytes += uint64(x.blocks) * uint64(a.spec.WQEBytes)
			a.Stats.addBytes(x.kind, purposeWQE, uint64(x.blocks)*uint64(a.spec.WQEBytes))
		}
		addr := qp.sqAddr + (w.block%qp.ringBlocks)*uint64(a.spec.WQEBytes)
		if err := a.dma.Read(addr, bytes, a, evFetch|uint64(id)); err != nil {
			panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", a.name, err))
		}
		a.Stats.WQEFetches++
		a.Stats.WQEsFetched += uint64(r.count)
	}
	if next != sim.MaxTick {
		f.drv.WakeAt(next)
	}
	return false
}

func (f *wqeFetch) take(r fetchReq) uint32 {
	id := f.free[len(f.free)-1]
	f.free = f.free[:len(f.free)-1]
	f.slots[id] = fetchSlot{req: r, busy: true, readyAt: sim.MaxTick}
	return id
}

// readDone runs when the WQE read of slot id has arrived.
func (f *wqeFetch) readDone(now sim.Tick, id uint32) {
	f.slots[id].readyAt = f.a.clock.NextEdge(now) + f.latency
	f.ready = append(f.ready, id)
	f.drv.Wake()
}
