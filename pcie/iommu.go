package pcie

import "github.com/nicsim/nicsim/sim"

// iommu is the host's IOMMU as DMA sees it (docs/sources.md 1.2): every
// DMA TLP's page is looked up in the IOTLB; a miss takes one of a few page
// walkers for IOMMUWalkNS and installs the translation, usable when the
// walk ends. A TLP to a page whose walk is still running waits for it (no
// second walk). The walkers are a resource: misses beyond them queue.
type iommu struct {
	shift   uint
	walk    sim.Tick
	walkers []sim.Tick // when each walker is free
	tlb     *iotlb
	meter   *sim.Meter
	st      *Stats
}

func newIOMMU(s Spec, st *Stats) *iommu {
	shift := uint(0)
	for 1<<shift < s.IOMMUPageBytes {
		shift++
	}
	return &iommu{shift: shift, walk: sim.FromNanoseconds(s.IOMMUWalkNS),
		walkers: make([]sim.Tick, s.IOMMUWalkers), tlb: newIOTLB(s.IOTLBEntries), st: st}
}

// translate returns when the translation of addr is usable for a TLP
// that needs it at now.
func (u *iommu) translate(now sim.Tick, addr uint64) sim.Tick {
	u.st.IOTLBLookups++
	page := addr >> u.shift
	if at, ok := u.tlb.lookup(page); ok {
		return max(now, at)
	}
	u.st.IOTLBMisses++
	w := 0
	for i, f := range u.walkers {
		if f < u.walkers[w] {
			w = i
		}
	}
	start := max(now, u.walkers[w])
	end := start + u.walk
	u.walkers[w] = end
	u.meter.Busy(start, end)
	u.tlb.insert(page, end)
	return end
}
