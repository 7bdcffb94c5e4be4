package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// completion is the completion engine. It takes finished requests from the
// engines (and cancelled ones from the scheduler's flush path) and retires
// each QP's requests in post order: a request that needs a CQE (any
// failure, or a success without SILENT_SUCCESS: docs/ndk.md rules 3, 5) waits
// Completion.LatencyCycles, then its CQE is written to the CQ ring by one
// DMA write of CQEBytes; Completion.ItemsPerCycle CQE writes start per
// accepting cycle. A successful SILENT_SUCCESS request is retired without a
// CQE. A CQE becomes visible to the consumer when its write has left the
// NIC (posted; see docs/nic.md, Deviations). A full CQ stalls the QP until
// the consumer polls.
type completion struct {
	a          *Adapter
	drv        *sim.TickDriver
	drain      []uint32 // QPs with finished requests to retire
	latency    sim.Tick
	interval   sim.Tick
	ipc        int
	nextAccept sim.Tick
	rr         int
}

var _ sim.Ticker = (*completion)(nil)

func newCompletion(a *Adapter) *completion {
	sp := a.spec.Completion
	c := &completion{a: a, latency: sim.Tick(sp.LatencyCycles) * a.clock.Period,
		interval: sim.Tick(sp.IntervalCycles) * a.clock.Period, ipc: int(sp.ItemsPerCycle)}
	c.drv = sim.NewTickDriver(a.name+".Completion", a.clock, a.eng, c)
	return c
}

// markDone records that request idx of qp has finished in the NIC.
func (c *completion) markDone(qp *QP, idx uint64, now sim.Tick) {
	w := qp.slot(idx)
	if w.awaitRemote {
		w.pipeDone = true // retired when the peer's answer arrives
		return
	}
	w.nicDone = true
	w.readyAt = now + c.latency
	if w.tExec == 0 {
		w.tExec = now
	}
	if !qp.inDrain {
		qp.inDrain = true
		c.drain = append(c.drain, qp.num)
	}
	c.drv.Wake()
}

// Tick takes finished requests from the engines, then retires requests.
func (c *completion) Tick(now sim.Tick) bool {
	a := c.a
	for i := range a.engines {
		e := a.engines[(c.rr+i)%len(a.engines)]
		for {
			m, ok := e.out.Pop()
			if !ok {
				break
			}
			c.markDone(a.qps[m.qp], m.idx, now)
		}
	}
	c.rr++
	next := sim.MaxTick
	budget := 0
	if now >= c.nextAccept {
		budget = c.ipc
	}
	wrote := 0
	stop := false
	keep := c.drain[:0]
	for _, qpn := range c.drain {
		qp := a.qps[qpn]
		if stop {
			keep = append(keep, qpn)
			continue
		}
		for qp.nicCompleted < qp.fetchIdx {
			w := qp.slot(qp.nicCompleted)
			if !w.nicDone {
				break
			}
			if w.readyAt > now {
				next = min(next, w.readyAt)
				break
			}
			needCQE := w.status != StatusSuccess || w.flags&OpSilentSuccess == 0
			if needCQE {
				cq := qp.cq
				if budget == wrote {
					next = min(next, max(c.nextAccept, now+a.clock.Period))
					stop = true
					break
				}
				if cq.prod-cq.cons >= uint64(cq.depth) {
					cq.compBlocked = true
					a.Stats.CQFullStalls++
					break
				}
				if !a.dma.CanAccept() {
					a.dma.AddWaker(c.drv)
					a.Stats.CQEDMAStalls++
					stop = true
					break
				}
				c.writeCQE(qp, w, now)
				wrote++
			} else {
				a.Stats.Silent++
			}
			a.Stats.recordExec(w, now)
			if a.trc.Tracing() {
				a.trace(qp, w, now)
			}
			w.nicDone = false
			qp.nicCompleted++
		}
		if qp.closeCB != nil {
			a.qpRetired(qp)
		}
		if qp.nicCompleted < qp.fetchIdx && qp.slot(qp.nicCompleted).nicDone {
			keep = append(keep, qpn) // still has work
		} else {
			qp.inDrain = false
		}
	}
	c.drain = keep
	if wrote > 0 {
		c.nextAccept = now + c.interval
	}
	if next != sim.MaxTick {
		c.drv.WakeAt(next)
	}
	return false
}

func (c *completion) writeCQE(qp *QP, w *wr, now sim.Tick) {
	a := c.a
	cq := qp.cq
	slot := uint32(cq.prod % uint64(cq.depth))
	cq.prod++
	cq.ring[slot] = cqEntry{
		res:   Result{Status: w.status, QPContext: qp.ctx, RequestContext: w.ctx, Type: w.op},
		qp:    qp,
		wrIdx: qp.nicCompleted,
		tPost: w.tPost,
		kind:  w.kind,
	}
	addr := cq.addr + uint64(slot)*uint64(a.spec.CQEBytes)
	if err := a.dma.Write(addr, uint64(a.spec.CQEBytes), a, evCQE|uint64(cq.num)<<32|uint64(slot)); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA write refused after CanAccept: %v", a.name, err))
	}
	a.Stats.addBytes(w.kind, purposeCQE, uint64(a.spec.CQEBytes))
	a.Stats.CQEs++
}

// cqeDone runs when a CQE write has left the NIC: the CQE is visible.
func (c *completion) cqeDone(now sim.Tick, cqn, slot uint32) {
	a := c.a
	cq := a.cqs[cqn]
	e := &cq.ring[slot]
	e.visible = true
	a.Stats.recordCQE(e, now)
	a.cqeInterrupt(cq, now)
	if cq.hook != nil {
		cq.hook.Handle(now, cq.hookArg)
	}
}

// trace records one retired request (only with a tracer attached).
func (a *Adapter) trace(qp *QP, w *wr, now sim.Tick) {
	track := fmt.Sprintf("%s.QP[%d]", a.name, qp.num)
	name := fmt.Sprintf("%v #%d %v", w.op, qp.nicCompleted, w.status)
	a.trc.Span(track, name, w.tPost, now)
	for _, m := range []struct {
		n string
		t sim.Tick
	}{{"doorbell", w.tDoorbell}, {"fetched", w.tFetched}, {"executed", w.tExec}} {
		if m.t != 0 {
			a.trc.Instant(track, m.n, m.t)
		}
	}
}
