package nic

import "github.com/nicsim/nicsim/sim"

// cqeInterrupt applies interrupt moderation when a CQE becomes visible: an
// armed CQ interrupts after ModerationCQEs CQEs or ModerationTimeNS after
// the first, whichever comes first.
func (a *Adapter) cqeInterrupt(cq *CQ, now sim.Tick) {
	if !cq.armed || cq.msixBusy {
		return
	}
	cq.modCount++
	if cq.modCount >= a.spec.ModerationCQEs || a.spec.ModerationTimeNS == 0 {
		a.raiseMSIX(cq)
		return
	}
	if !cq.timerArmed {
		cq.timerArmed = true
		cq.timerGen++
		a.eng.After(sim.Tick(a.spec.ModerationTimeNS)*sim.NS, sim.PrioDefault, a, evModTimer|uint64(cq.num)<<32|cq.timerGen&0xFFFF_FFFF)
	}
}

func (a *Adapter) moderationTimer(now sim.Tick, cqn uint32, gen uint64) {
	cq := a.cqs[cqn]
	if !cq.timerArmed || cq.timerGen&0xFFFF_FFFF != gen {
		return
	}
	if cq.armed && !cq.msixBusy {
		a.raiseMSIX(cq)
	}
}

func (a *Adapter) raiseMSIX(cq *CQ) {
	cq.timerArmed = false
	cq.modCount = 0
	cq.msixBusy = true
	a.Stats.Interrupts++
	if err := a.mmio.MSIX(a, evMSIX|uint64(cq.num)); err != nil {
		// The MSI-X queue is full: try again at the next CQE.
		cq.msixBusy = false
		a.Stats.Interrupts--
	}
}

func (a *Adapter) msixDone(now sim.Tick, cqn uint32) {
	cq := a.cqs[cqn]
	cq.msixBusy = false
	if !cq.armed {
		return
	}
	cq.armed = false
	f := cq.notify
	cq.notify = nil
	f()
}
