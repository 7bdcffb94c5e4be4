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
// the consumer polls. It is also the handler of every CQE write, the
// receives' included.
type completion struct {
	block
	a     *Adapter
	drain []uint32 // QPs with finished requests to retire
	rr    int      // engine the next tick takes from first (< len(engines))
	wrote int      // CQE writes started in this tick
}

var _ sim.Handler = (*completion)(nil)

func newCompletion(a *Adapter) *completion {
	c := &completion{a: a}
	c.block = a.newBlock(a.name+".Completion", a.spec.Completion, c)
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
	ne := len(a.engines)
	for i := range ne {
		j := c.rr + i // c.rr < ne: one wrap at most, no division
		if j >= ne {
			j -= ne
		}
		e := a.engines[j]
		// A finished request leaves the queue before it is marked done:
		// the pop wakes the engine's last stage (when it waits for room)
		// before markDone wakes the completion engine.
		for m, ok := e.out.PeekAt(now); ok; m, ok = e.out.PeekAt(now) {
			e.out.Drop()
			c.markDone(a.qps[m.qp], m.idx, now)
		}
	}
	if c.rr++; c.rr == ne {
		c.rr = 0
	}
	next := sim.MaxTick
	budget := 0
	if now >= c.nextAccept {
		budget = c.ipc
	}
	c.wrote = 0
	stop := false
	kept := 0 // QPs kept in the drain list, compacted in place
	for _, qpn := range c.drain {
		qp := a.qps[qpn]
		if !stop {
			var at sim.Tick
			at, stop = c.retire(qp, now, budget)
			next = min(next, at)
			if qp.closeCB != nil {
				a.qpRetired(qp)
			}
			if qp.nicCompleted >= qp.fetchIdx || !qp.slot(qp.nicCompleted).nicDone {
				qp.inDrain = false
				continue
			}
		}
		c.drain[kept] = qpn // still has work
		kept++
	}
	c.drain = c.drain[:kept]
	if c.wrote > 0 {
		c.took(now, c.wrote)
	}
	if next != sim.MaxTick {
		c.drv.WakeAt(next)
	}
	return false
}

// retire retires qp's finished requests in post order while the budget of
// CQE writes lasts. It returns when to tick again for qp (MaxTick: woken)
// and whether the tick must stop retiring (no budget or no DMA room).
func (c *completion) retire(qp *QP, now sim.Tick, budget int) (sim.Tick, bool) {
	a := c.a
	for qp.nicCompleted < qp.fetchIdx {
		w := qp.slot(qp.nicCompleted)
		if !w.nicDone {
			break
		}
		if w.readyAt > now {
			return w.readyAt, false
		}
		if w.status != StatusSuccess || w.flags&OpSilentSuccess == 0 {
			if budget == c.wrote {
				return max(c.nextAccept, now+c.period), true
			}
			if qp.cq.full() {
				qp.cq.compBlocked = true
				a.Stats.CQFullStalls++
				break
			}
			if !a.dma.CanAcceptWrite() {
				a.dma.AddWaker(c.drv)
				a.Stats.CQEDMAStalls++
				return sim.MaxTick, true
			}
			c.writeCQE(qp, w)
			c.wrote++
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
	return sim.MaxTick, false
}

func (c *completion) writeCQE(qp *QP, w *wr) {
	cq := qp.cq
	slot := cq.at(cq.prod)
	cq.prod++
	// The slot is filled in place, every field: a literal would be built
	// on the stack and copied.
	e := &cq.ring[slot]
	e.res = Result{Status: w.status, QPContext: qp.ctx, RequestContext: w.ctx, Type: w.op}
	e.qp, e.wrIdx, e.tPost, e.kind, e.recv, e.visible = qp, qp.nicCompleted, w.tPost, w.kind, false, false
	addr, n := cq.cqeAddr(slot)
	if err := c.a.dma.Write(addr, n, c, uint64(cq.num)<<32|uint64(slot)); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA write refused after CanAccept: %v", c.a.name, err))
	}
	c.a.Stats.addBytes(w.kind, purposeCQE, n)
	c.a.Stats.CQEs++
}

// Handle runs when a CQE write (cqn<<32 | ring slot) has reached host
// memory: the NIC's post-to-CQE latency ends here and interrupt moderation
// counts it; the consumer sees it once the QP's core has polled it
// (hostCPU.poll, then cqeSeen).
func (c *completion) Handle(now sim.Tick, arg uint64) {
	a := c.a
	cq := a.cqs[arg>>32]
	e := &cq.ring[uint32(arg)]
	a.Stats.recordCQE(e, now)
	a.irq.cqeVisible(cq)
	a.cores.poll(cq, uint32(arg))
}

// cqeSeen makes the CQE in slot of cq visible to the consumer (GetCQResults)
// and runs the CQ's hook.
func (a *Adapter) cqeSeen(cq *CQ, slot uint32, now sim.Tick) {
	cq.ring[slot].visible = true
	if cq.hook != nil {
		cq.hook.Handle(now, cq.hookArg)
	}
}

// trace records one retired request (only with a tracer attached): a span
// from post to retirement on its QP's track (lanes keep overlapping
// requests apart), with its arguments and its phases between the
// milestones it passed (doorbell, WQE fetched, executed).
func (a *Adapter) trace(qp *QP, w *wr, now sim.Tick) {
	name := w.op.String()
	if w.status != StatusSuccess {
		name += " " + w.status.String()
	}
	s := &sim.Span{Track: fmt.Sprintf("%s work requests/QP[%d]", a.name, qp.num), Name: name, Start: w.tPost, End: now,
		Args: []sim.Arg{{Key: "qp", Value: qp.num}, {Key: "index", Value: qp.nicCompleted}, {Key: "op", Value: w.op.String()},
			{Key: "pages", Value: w.npages}, {Key: "length", Value: w.length}, {Key: "status", Value: w.status.String()}}}
	at := w.tPost
	for _, m := range []struct {
		n string
		t sim.Tick
	}{{"post->doorbell", w.tDoorbell}, {"doorbell->fetched", w.tFetched}, {"fetched->executed", w.tExec}, {"executed->retired", now}} {
		if m.t >= at && m.t != 0 {
			s.Phases = append(s.Phases, sim.Phase{Name: m.n, Start: at, End: m.t})
			at = m.t
		}
	}
	a.trc.Span(s)
}
