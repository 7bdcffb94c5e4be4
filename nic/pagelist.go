package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// pageList is the page-list fetch stage. A FastRegister whose page list
// did not fit in the WQE (more than InlinePageListEntriesMax entries) reads
// it from host memory by DMA: 8 B per page (docs/sources.md 6), one
// dependent read round trip (docs/sources.md 5). The engine is in order and
// may have at most PageListFetchesMax such reads in flight; requests behind
// a fetching one wait for it (the execution unit blocks on the dependent
// read), which is what caps FastRegister throughput with DMA-fetched lists
// at about one registration per read round trip per engine. Inline lists
// and other operations pass through in LatencyCycles.
type pageList struct {
	a          *Adapter
	fetchesMax int
}

func newPageList(a *Adapter, e *engine) *stage {
	p := &pageList{a: a, fetchesMax: int(a.spec.PageListFetchesMax)}
	s := a.newStage(e.prefix, "PageList", a.spec.PageList, p, p.fetchesMax+1)
	s.waits = a.meter(s.name+".Fetches", "reads", uint64(p.fetchesMax))
	s.waits.TrackWaits()
	// The stage is in order: a request behind a fetching one holds its
	// place until that read returns, so with other requests between the
	// FastRegisters (an Invalidate after each) the stage fills with fewer
	// than PageListFetchesMax reads in flight: the time it is full with
	// its oldest request waiting for its read is service the reads take
	// from it, as in validate.
	s.blocked = a.meter(s.name+".ReadBlocked", "stage", 1)
	s.blocked.Serves()
	return s
}

func (p *pageList) accept(s *stage, m item, now sim.Tick) acceptResult {
	a := p.a
	qp := a.qps[m.qp]
	w := qp.slot(m.idx)
	if w.skip || w.op != OpFastRegister || w.inline {
		return acceptSync
	}
	full := s.waitingN >= p.fetchesMax
	s.waits.Waits(now, full) // the head request waits for a read of its own
	if full {
		return acceptStall // woken when the outstanding read completes
	}
	if !a.dma.CanAcceptRead() {
		a.dma.AddWaker(s.drv)
		a.Stats.PageListDMAStalls++
		return acceptStall
	}
	bytes := uint64(w.npages) * 8
	addr := qp.plAddr + (m.idx%uint64(qp.depth))*qp.plStride
	if err := a.dma.Read(addr, bytes, s, s.nextSlot()); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", s.name, err))
	}
	a.Stats.addBytes(w.kind, purposePageList, bytes)
	a.Stats.PageListFetches++
	return acceptAsync
}
