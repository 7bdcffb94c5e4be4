package nic

import "github.com/nicsim/nicsim/sim"

// interrupts is the NIC's MSI-X block (NdkArmCq): an armed CQ interrupts
// after ModerationCQEs CQEs or ModerationTimeNS after the first, if sooner.
type interrupts struct{ a *Adapter }

// Events of interrupts.Handle.
const (
	irqEvMSIX  = 1 << evShift // the MSI-X reached the host: cqn
	irqEvTimer = 2 << evShift // moderation timer: cqn<<32 | generation
	irqEvRetry = 3 << evShift // an MSI-X that found the queue full tries again: cqn
)

var _ sim.Handler = (*interrupts)(nil)

// cqeVisible applies moderation when a CQE of cq becomes visible. Small
// enough to inline, so that a CQ nobody armed (a polling consumer's) costs
// its caller no call.
func (q *interrupts) cqeVisible(cq *CQ) {
	if cq.armed && !cq.msixBusy {
		q.moderate(cq)
	}
}

// moderate counts a CQE of an armed CQ whose interrupt is not on its way
// and raises the interrupt or starts the moderation timer.
func (q *interrupts) moderate(cq *CQ) {
	sp := &q.a.spec
	cq.modCount++
	if cq.modCount >= sp.ModerationCQEs || sp.ModerationTimeNS == 0 {
		q.raise(cq)
		return
	}
	if !cq.timerArmed {
		cq.timerArmed = true
		cq.timerGen++
		q.a.eng.After(sim.Tick(sp.ModerationTimeNS)*sim.NS, sim.PrioDefault, q, irqEvTimer|uint64(cq.num)<<32|cq.timerGen&0xFFFF_FFFF)
	}
}

// Handle receives MSI-X arrivals and moderation timers.
func (q *interrupts) Handle(now sim.Tick, arg uint64) {
	if arg&^evMask == irqEvRetry {
		if cq := q.a.cqs[arg&evMask]; cq.armed && !cq.closed {
			q.raise(cq)
		} else {
			cq.msixBusy = false
		}
		return
	}
	if arg&^evMask == irqEvMSIX { // an armed CQ notifies once
		cq := q.a.cqs[arg&evMask]
		cq.msixBusy = false
		if cq.armed {
			cq.armed = false
			f := cq.notify
			cq.notify = nil
			f()
		}
		return
	}
	cq := q.a.cqs[(arg&evMask)>>32]
	if cq.timerArmed && cq.timerGen&0xFFFF_FFFF == uint64(uint32(arg)) && cq.armed && !cq.msixBusy {
		q.raise(cq)
	}
}

// raise sends the CQ's MSI-X. When the DMA engine's MSI-X queue is full
// the interrupt stays on its way (msixBusy) and tries again a cycle later:
// the CQ may get no other CQE to carry it.
func (q *interrupts) raise(cq *CQ) {
	cq.timerArmed = false
	cq.modCount = 0
	cq.msixBusy = true
	if err := q.a.mmio.MSIX(q, irqEvMSIX|uint64(cq.num)); err != nil {
		q.a.eng.After(q.a.clock.Period, sim.PrioDefault, q, irqEvRetry|uint64(cq.num))
		return
	}
	q.a.Stats.Interrupts++
}
