package nic

import "github.com/nicsim/nicsim/sim"

// doorbell is the doorbell handler. An 8 B doorbell (or the last 64 B store
// of a WQE-by-MMIO write) arriving over PCIe carries a QP number and the
// QP's new producer index (docs/sources.md 6: HanGu's 64-bit doorbell holds
// the QPN and the SQ position). Arrivals queue in the doorbell stage's input
// FIFO; the stage takes Doorbell.ItemsPerCycle per cycle and,
// Doorbell.LatencyCycles later, updates the QP context and hands the QP to
// the scheduler.
//
// The FIFO in front of the stage holds at most Doorbell.QueueDepth records;
// arrivals beyond that wait in an overflow list in arrival order (PCIe has
// already returned their credits). The overflow is bounded by the WRs posted
// and not yet indicated, i.e. by the sum of the QPs' depths, and counted in
// NIC.Doorbell.Overflow.
type doorbell struct {
	a        *Adapter
	s        *stage
	overflow sim.FIFO[item] // records beyond the FIFO, in arrival order
}

// Bits of an MMIO arrival's argument: qpn<<32 | low 32 bits of the
// producer index, with these flags.
const (
	mmioWQEBit = 1 << 55 // the write was the WQE itself (WQE-by-MMIO)
	flushBit   = 1 << 54 // NdkFlush
	qpnMask    = 1<<22 - 1
)

var _ sim.Handler = (*doorbell)(nil)

func newDoorbell(a *Adapter) *doorbell {
	d := &doorbell{a: a}
	d.s = a.newStage(a.name+".", "Doorbell", a.spec.Doorbell, d, 0)
	d.s.sink = d.leave
	d.s.in.Connect(nil, d.s.drv)
	return d
}

// Handle records an MMIO arrival (doorbell, WQE-by-MMIO or flush).
func (d *doorbell) Handle(now sim.Tick, arg uint64) {
	a := d.a
	a.cpu.retry()
	qpn := uint32(arg>>32) & qpnMask
	qp := a.qps[qpn]
	if arg&flushBit != 0 {
		a.qpToError(qp, 0) // NdkFlush (already in effect since the call, post.go)
	}
	pi := widen(qp.posted, uint32(arg))
	m := item{qp: qpn, idx: pi}
	if arg&mmioWQEBit != 0 {
		qp.slot(pi - 1).mmio = true
		a.Stats.MMIOWQEs++
	} else {
		a.Stats.Doorbells++
	}
	if d.overflow.Len() == 0 && d.s.in.CanSend() {
		if err := d.s.in.Send(m); err != nil {
			panic(err)
		}
		return
	}
	a.Stats.DoorbellOverflow++
	d.overflow.Push(m)
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

// accept: the doorbell record needs only the stage's time.
func (d *doorbell) accept(*stage, item, sim.Tick) acceptResult { return acceptSync }

// leave is the stage's output: the QP context learns the new producer
// index and the scheduler gets the QP.
func (d *doorbell) leave(m item, now sim.Tick) {
	for d.overflow.Len() > 0 && d.s.in.CanSend() {
		if err := d.s.in.Send(d.overflow.Peek()); err != nil {
			panic(err)
		}
		d.overflow.Drop()
	}
	qp := d.a.qps[m.qp]
	if m.idx <= qp.nicPI {
		return
	}
	for i := qp.nicPI; i < m.idx; i++ {
		qp.slot(i).tDoorbell = now + d.s.period
	}
	qp.nicPI = m.idx
	qp.meterFetchWait(now)
	d.a.sched.activate(qp)
}
