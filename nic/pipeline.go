package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// build wires the hardware blocks: doorbell -> scheduler -> WQE fetch ->
// engines -> completion, and the blocks beside the pipeline.
func (a *Adapter) build() error {
	a.cores.init(a)
	a.cpu.a = a
	a.calls.a = a
	a.irq.a = a
	a.tptWrites.a, a.tptWrites.engines = a, int(a.spec.ExecEngines)
	a.tpt.OnWriteSlotFree(&a.tptWrites)
	a.tpt.TrackWriteWaits()
	a.fw.init(a)
	a.req.a = a
	a.req.tx.init(a, a.name+".Requester.TxBuffer", a.spec.TxBufferBytes)
	a.req.rx.init(a, a.name+".Requester.RxBuffer", a.spec.RxBufferBytes)
	a.resp.init(a)
	a.dataDMA.a = a
	a.hazards.entries = make([]hazard, a.spec.TPT.KeyTableEntriesMax)
	a.doorbell = newDoorbell(a)
	a.sched = newScheduler(a)
	a.completion = newCompletion(a)
	for i := range a.spec.ExecEngines {
		a.engines = append(a.engines, a.newEngine(i))
	}
	a.fetch = newWQEFetch(a)
	for _, e := range a.engines {
		e.first.in.Connect(a.fetch.drv, e.first.drv)
	}
	a.declareHeldAcross()
	return a.buildErr
}

// engine is one execution engine (processing unit): an in-order chain of
// stages whose first takes WQEs from the WQE fetch and whose last feeds the
// completion engine.
type engine struct {
	idx    uint32
	prefix string          // NIC.Engine[i].
	first  *stage          // takes the WQEs
	out    *sim.Port[item] // to the completion engine
}

// newEngine builds engine i. Its chain is the list below, in order: a
// stage is a file with its work (a stageWork) and constructor, plus its
// line here.
func (a *Adapter) newEngine(i uint32) *engine {
	e := &engine{idx: i, prefix: fmt.Sprintf("%s.Engine[%d].", a.name, i)}
	chain := []*stage{
		newParse(a, e),
		newValidate(a, e),
		newPageList(a, e),
		newMTTWrite(a, e),
		newMPTUpdate(a, e),
		newCacheWrite(a, e),
	}
	e.out = sim.MustNewPort[item](e.prefix+"ToCompletion", a.eng, int(a.spec.Completion.QueueDepth), a.clock.Period)
	for j, s := range chain {
		next, nextDrv := e.out, a.completion.drv
		if j+1 < len(chain) {
			next, nextDrv = chain[j+1].in, chain[j+1].drv
		}
		s.out = next
		next.Connect(s.drv, nextDrv)
	}
	e.first = chain[0]
	return e
}
