package nic

import "github.com/nicsim/nicsim/sim"

// The doorbell handler. An 8 B doorbell (or the last 64 B store of a
// WQE-by-MMIO write) arriving over PCIe carries a QP number and the QP's new
// producer index (docs/sources.md 6: HanGu's 64-bit doorbell holds the QPN and
// the SQ position). Arrivals queue in the doorbell stage's input FIFO; the
// stage takes Doorbell.ItemsPerCycle per cycle and, Doorbell.LatencyCycles
// later, updates the QP context and hands the QP to the scheduler.
//
// The FIFO in front of the stage holds at most Doorbell.QueueDepth records;
// arrivals beyond that wait in an overflow list in arrival order (PCIe has
// already returned their credits). The overflow is bounded by the WRs posted
// and not yet indicated, i.e. by the sum of the QPs' depths, and counted in
// NIC.Doorbell.Overflow.

// doorbellArrived records an MMIO arrival: arg = qpn<<32 | low 32 bits of
// the producer index, bit 55 set for WQE-by-MMIO.
func (a *Adapter) doorbellArrived(now sim.Tick, arg uint64) {
	qpn := uint32(arg>>32) & qpnMask
	qp := a.qps[qpn]
	if arg&flushBit != 0 {
		qp.err = true // NdkFlush: the QP is in the error state from now on
		a.sched.activate(qp)
	}
	pi := widen(qp.posted, uint32(arg))
	m := item{qp: qpn, idx: pi}
	if arg&mmioWQEBit != 0 {
		qp.slot(pi - 1).mmio = true
		a.Stats.MMIOWQEs++
	} else {
		a.Stats.Doorbells++
	}
	if len(a.doorbellOverflow) == 0 && a.doorbell.in.CanSend() {
		if err := a.doorbell.in.Send(m); err != nil {
			panic(err)
		}
		return
	}
	a.Stats.DoorbellOverflow++
	a.doorbellOverflow = append(a.doorbellOverflow, m)
}

// widen rebuilds a 64-bit index from its low 32 bits, given an upper
// bound that is at most 2^32 ahead.
func widen(bound uint64, low uint32) uint64 {
	v := bound&^0xFFFF_FFFF | uint64(low)
	if v > bound {
		v -= 1 << 32
	}
	return v
}

// doorbellApply is the doorbell stage's output: the QP context learns the
// new producer index and the scheduler gets the QP.
func (a *Adapter) doorbellApply(m item, now sim.Tick) {
	for len(a.doorbellOverflow) > 0 && a.doorbell.in.CanSend() {
		if err := a.doorbell.in.Send(a.doorbellOverflow[0]); err != nil {
			panic(err)
		}
		a.doorbellOverflow = a.doorbellOverflow[1:]
	}
	qp := a.qps[m.qp]
	if m.idx <= qp.nicPI {
		return
	}
	for i := qp.nicPI; i < m.idx; i++ {
		qp.slot(i).tDoorbell = now + a.clock.Period
	}
	qp.nicPI = m.idx
	a.sched.activate(qp)
}
