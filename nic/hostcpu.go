package nic

import (
	"fmt"
	"strings"

	"github.com/nicsim/nicsim/sim"
)

// hostCPU is the host's posting cores. QP n posts and polls on core
// n mod HostCores (docs/sources.md 2: one core drives one QP). A core is a
// server that does one thing at a time, in the order it was asked:
//
//   - a post builds the WQE in the SQ ring: PostWQEBuildPS per work request;
//   - indicating posted WRs to the NIC is a store the core executes: one
//     8 B uncached doorbell store (PostDoorbellStorePS, also NdkFlush's
//     command), or the WQE itself as 64 B write-combined stores
//     (PostWCLinePS per line); the MMIO write is handed to the PCIe link
//     when the core has executed it, and from there the link's MMIO path
//     times it (pcie: the gaps between MMIO TLPs);
//   - a consumer that spins on a CQ sees a CQE PollCQEPS after the CQE is
//     in host memory, or later while its core is busy.
//
// A post returns at once to its caller (the model's consumer is not
// blocked), but its doorbell leaves only when the core gets to it, so a
// core that cannot keep up makes every later post of its QPs wait: one core
// can bind the throughput of its QPs. Each core has a meter
// (<host>.Core[i]) that counts its busy time.
type hostCPU struct {
	a     *Adapter
	cores []hostCore
}

// hostCore is one core: busy until free, its busy time metered.
type hostCore struct {
	free  sim.Tick
	meter *sim.Meter
}

// Events of hostCPU.Handle: kind in the top byte.
const (
	cpuEvMMIO = 1 << evShift // a doorbell/WQE/flush store executed: the doorbell argument below
	cpuEvPoll = 2 << evShift // a CQE polled: cqn<<32 | ring slot
)

var _ sim.Handler = (*hostCPU)(nil)

// hostName is the name of the host an adapter sits in: "NIC" is in
// "Host", "B.NIC" in "B.Host".
func hostName(adapter string) string {
	if p, ok := strings.CutSuffix(adapter, "NIC"); ok {
		return p + "Host"
	}
	return adapter + ".Host"
}

func (h *hostCPU) init(a *Adapter) {
	h.a = a
	n := a.spec.HostCores
	h.cores = make([]hostCore, n)
	for i := range h.cores {
		h.cores[i].meter = a.meter(fmt.Sprintf("%s.Core[%d]", hostName(a.name), i), "cores", 1)
	}
}

// core is the core that posts to and polls for qp (qp.num mod HostCores,
// kept in the QP).
func (h *hostCPU) core(qp *QP) uint32 { return qp.core }

// work occupies core c for d ps after everything it was given before and
// returns when that work ends.
func (h *hostCPU) work(c uint32, d uint64) sim.Tick {
	now, k := h.a.eng.Now(), &h.cores[c]
	start := max(now, k.free)
	end := start + sim.Tick(d)
	if d > 0 {
		k.free = end
		k.meter.Busy(start, end)
	}
	return end
}

// store has the core of qp execute an MMIO store of lines 64 B
// write-combined lines (0: one uncached doorbell store); the MMIO write
// whose arrival the doorbell handles with arg is issued when it is done.
func (h *hostCPU) store(qp *QP, lines uint64, arg uint64) {
	cost := h.a.spec.PostDoorbellStorePS
	if lines > 0 {
		cost = lines * h.a.spec.PostWCLinePS
	}
	if end := h.work(h.core(qp), cost); end > h.a.eng.Now() {
		h.a.eng.Schedule(end, sim.PrioDefault, h, cpuEvMMIO|arg&evMask)
		return
	}
	h.issue(arg)
}

// issue hands the MMIO write named by the doorbell argument arg to the
// host's MMIO path: a flush command, a WQE-by-MMIO write of the QP's WR
// before the producer index, or a doorbell.
func (h *hostCPU) issue(arg uint64) {
	a := h.a
	qp := a.qps[uint32(arg>>32)&qpnMask]
	base := a.spec.MMIOBaseAddr + uint64(qp.num)*4096
	switch {
	case arg&flushBit != 0:
		a.cpu.issue(base+8, uint64(a.spec.DoorbellBytes), a.doorbell, arg)
	case arg&mmioWQEBit != 0:
		w := qp.slot(widen(qp.posted, uint32(arg)) - 1)
		a.cpu.issue(base+2048, uint64(w.blocks)*uint64(a.spec.WQEBytes), a.doorbell, arg)
	default:
		a.cpu.issue(base, uint64(a.spec.DoorbellBytes), a.doorbell, arg)
	}
}

// poll has the core of the CQE's QP take the CQE in slot of cq, which has
// just reached host memory; the consumer sees it when the core is done.
func (h *hostCPU) poll(cq *CQ, slot uint32) {
	e := &cq.ring[slot]
	if end := h.work(h.core(e.qp), h.a.spec.PollCQEPS); end > h.a.eng.Now() {
		h.a.eng.Schedule(end, sim.PrioDefault, h, cpuEvPoll|uint64(cq.num)<<32|uint64(slot))
		return
	}
	h.a.cqeSeen(cq, slot, h.a.eng.Now())
}

// Handle runs when a core has executed an MMIO store or polled a CQE.
func (h *hostCPU) Handle(now sim.Tick, arg uint64) {
	switch arg &^ evMask {
	case cpuEvMMIO:
		h.issue(arg & evMask)
	case cpuEvPoll:
		h.a.cqeSeen(h.a.cqs[(arg&evMask)>>32], uint32(arg), now)
	default:
		panic(fmt.Sprintf("nic: %s: unknown host CPU event %#x", h.a.name, arg))
	}
}
