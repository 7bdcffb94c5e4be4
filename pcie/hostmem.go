package pcie

import (
	"math/rand/v2"

	"github.com/nicsim/nicsim/sim"
)

// hostMem is host memory as DMA sees it: the latency of each MRd, drawn
// from a bounded distribution fitted to pcie-bench (docs/sources.md 1.1)
// with LLC-miss and remote-NUMA additions; the time each posted write
// takes to become visible; and the IOMMU. Each random effect has its own
// seeded stream (sim.Stream), so turning one on does not change another's
// draws.
type hostMem struct {
	fixed, below, p999, above  float64 // ps: median, min below it, p99.9 and max above it
	llcFrac, llcPS             float64
	numaFrac, numaPS           float64
	visPS, visPerBytePS        float64
	spreadRNG, llcRNG, numaRNG *rand.Rand
	pending                    sim.FIFO[pendingWrite] // writes not yet visible, in visibility order
	lastVis                    sim.Tick               // when the latest write is visible
	iommu                      *iommu
}

// pendingWrite is a posted write the host has not yet made visible.
type pendingWrite struct {
	lo, hi uint64
	vis    sim.Tick
}

func newHostMem(s Spec, env *sim.Env, name string, st *Stats) *hostMem {
	ps := func(ns float64) float64 { return ns * 1000 }
	m := &hostMem{fixed: ps(s.HostReadLatencyFixedNS), below: ps(s.HostReadSpreadMinNS),
		p999: ps(s.HostReadSpreadP999NS), above: ps(s.HostReadSpreadMaxNS),
		llcFrac: s.HostLLCMissFraction, llcPS: ps(s.HostLLCMissNS),
		numaFrac: s.HostRemoteNUMAFraction, numaPS: ps(s.HostRemoteNUMANS),
		visPS: ps(s.HostWriteVisibleFixedNS), visPerBytePS: ps(s.HostWriteVisiblePerByteNS),
		spreadRNG: env.Stream(name + ".Read"), llcRNG: env.Stream(name + ".LLC"), numaRNG: env.Stream(name + ".NUMA")}
	if s.IOMMU {
		m.iommu = newIOMMU(s, st)
	}
	m.pending.Grow() // never empty when full (writeArrivedIn)
	return m
}

// quantile is the spread's inverse CDF, relative to the median: linear
// from -below at 0 to 0 at 0.5, to p999 at 0.999 and to above at 1.
func (m *hostMem) quantile(u float64) float64 {
	switch {
	case u < 0.5:
		return -m.below * (1 - u/0.5)
	case u < 0.999:
		return m.p999 * (u - 0.5) / 0.499
	default:
		return m.p999 + (m.above-m.p999)*(u-0.999)/0.001
	}
}

// readLatency draws the fixed part of one MRd's latency.
func (m *hostMem) readLatency() sim.Tick {
	ps := m.fixed + m.quantile(m.spreadRNG.Float64())
	if m.llcFrac > 0 && m.llcRNG.Float64() < m.llcFrac {
		ps += m.llcPS
	}
	if m.numaFrac > 0 && m.numaRNG.Float64() < m.numaFrac {
		ps += m.numaPS
	}
	return sim.Tick(ps + 0.5)
}

// prune forgets writes visible by now.
func (m *hostMem) prune(now sim.Tick) {
	for m.pending.Len() > 0 && m.pending.Front().vis <= now {
		m.pending.Drop() // a pending write holds no pointers
	}
}

// readStart is when the data of an MRd of n bytes at addr, arriving at
// now, starts to be ready: after its translation, after every write to
// any of its bytes is visible (the read returns the written data:
// pcie-bench's write-then-read, docs/sources.md 1.1), plus the drawn
// latency.
func (m *hostMem) readStart(now sim.Tick, addr, n uint64) sim.Tick {
	t := now
	if m.iommu != nil {
		t = m.iommu.translate(now, addr)
	}
	m.prune(now)
	for k := 0; k < m.pending.Len(); k++ {
		if w := m.pending.At(k); w.lo < addr+n && addr < w.hi {
			t = max(t, w.vis)
		}
	}
	return t + m.readLatency()
}

// writeArrived is when a posted write of n bytes at addr, arriving at now,
// is visible. Writes become visible in arrival order (PCIe posted
// ordering: a CQE is never seen before the data written ahead of it).
func (m *hostMem) writeArrived(now sim.Tick, addr, n uint64) sim.Tick {
	return m.writeArrivedIn(now, addr, n, m.visDelay(n))
}

// writeArrivedIn is writeArrived for a write whose visDelay is delay.
func (m *hostMem) writeArrivedIn(now sim.Tick, addr, n uint64, delay sim.Tick) sim.Tick {
	t := now
	if m.iommu != nil {
		t = m.iommu.translate(now, addr)
	}
	vis := max(t+delay, m.lastVis)
	m.lastVis = vis
	if p := &m.pending; p.Len() == p.Cap() && p.Front().vis <= now {
		p.Drop() // only to bound the ring, the oldest once visible: readStart prunes before it looks
	}
	m.pending.Push(pendingWrite{lo: addr, hi: addr + n, vis: vis})
	return vis
}

// visDelay is how long a posted write of n bytes takes to become visible
// once it has arrived (and been translated).
// The conversions go through int64, which is cheaper than uint64 and the
// same here: a write's bytes and its delay (LatencyNSMax and PerByteNSMax
// bound it, Spec.Validate) are far below 2^63.
func (m *hostMem) visDelay(n uint64) sim.Tick {
	return sim.Tick(int64(m.visPS + m.visPerBytePS*float64(int64(n)) + 0.5))
}

// interrupt is when an MSI-X arriving at now is delivered: not before the
// writes ahead of it are visible.
func (m *hostMem) interrupt(now sim.Tick) sim.Tick {
	m.lastVis = max(m.lastVis, now)
	return m.lastVis
}
