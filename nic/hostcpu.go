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

// hostCore is one core: busy until free, its busy time metered. Work
// given to a core that is still busy extends the busy span [from, free)
// that ends where the work starts, and the meter is given whole spans
// (when a gap ends one, or before the meter is read: OnRead) rather than
// each piece of work: its integer sums come out the same, for fewer
// calls (a post's WQE build and its doorbell store are one span).
type hostCore struct {
	mmio  uint32 // the core's MMIO source on the link (its own issue gaps)
	free  sim.Tick
	from  sim.Tick // start of the span not yet given to the meter
	meter *sim.Meter
	// early: the span began before the meters' window was set. The
	// meter drops what it is given before then, so such a span is
	// dropped, not given, and a piece after the window begins a span.
	early bool
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
		k := &h.cores[i]
		name := fmt.Sprintf("%s.Core[%d]", hostName(a.name), i)
		k.meter = a.meter(name, "cores", 1)
		k.mmio = a.mmioSource(name)
		k.meter.OnRead(k.flush)
		k.early = true // no window yet
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
		if start != k.free || k.early {
			h.span(k, start)
		}
		k.free = end
	}
	return end
}

// span makes work that starts at start, not where k's span ends (or
// while the span is early), begin a span: the one before goes to the
// meter.
func (h *hostCPU) span(k *hostCore, start sim.Tick) {
	if k.early {
		h.earlySpan(k, start)
		return
	}
	if k.free > k.from {
		k.meter.Busy(k.from, k.free)
	}
	k.from = start
}

// earlySpan is span while k's span is early: early work after early work
// goes on with its span until the window is set, and then begins one
// that is not early (a window, once set, stays).
func (h *hostCPU) earlySpan(k *hostCore, start sim.Tick) {
	_, _, n := h.a.env.Meters.Intervals()
	if n == 0 && start == k.free {
		return
	}
	k.from, k.early = start, n == 0
}

// flush gives the meter the span not yet given (an early one is dropped,
// as the meter would drop it).
func (k *hostCore) flush() {
	if k.free > k.from && !k.early {
		k.meter.Busy(k.from, k.free)
	}
	k.from = k.free
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
	src := h.cores[h.core(qp)].mmio
	switch {
	case arg&flushBit != 0:
		a.cpu.issue(base+8, uint64(a.spec.DoorbellBytes), src, a.doorbell, arg)
	case arg&mmioWQEBit != 0:
		w := qp.slot(widen(qp.posted, uint32(arg)) - 1)
		a.cpu.issue(base+2048, uint64(w.blocks)*uint64(a.spec.WQEBytes), src, a.doorbell, arg)
	default:
		a.cpu.issue(base, uint64(a.spec.DoorbellBytes), src, a.doorbell, arg)
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
