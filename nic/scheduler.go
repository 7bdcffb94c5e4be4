package nic

import "github.com/nicsim/nicsim/sim"

// scheduler picks, round robin, the next QP with work: WRs the doorbell made
// known that are not fetched yet, and no fetch of that QP in flight (one
// fetch per QP keeps each QP's WRs in order). It makes Scheduler.ItemsPerCycle
// decisions per accepting cycle; a decision is a fetch request of up to
// WQEFetchBatchMax WRs, cut where the SQ ring wraps and where WQE-by-MMIO
// WRs (already on the NIC) meet fetched ones. A QP in the error state is not
// fetched: its remaining WRs are flushed straight to the completion engine
// with STATUS_CANCELLED (docs/ndk.md 5.1), WQEFetchBatchMax per decision.
type scheduler struct {
	block
	a    *Adapter
	ring sim.FIFO[uint32] // QPs with work, round-robin order (a QP at most once: bounded by the QP count)
	out  *sim.Port[fetchReq]
}

// fetchReq asks the WQE fetch engine for WRs [first, first+count) of a QP.
type fetchReq struct {
	qp    uint32
	first uint64
	count uint32
	mmio  bool // already on the NIC: no DMA
}

var _ sim.Ticker = (*scheduler)(nil)

func newScheduler(a *Adapter) *scheduler {
	s := &scheduler{a: a}
	s.block = a.newBlock(a.name+".Scheduler", a.spec.Scheduler, s)
	s.out = sim.MustNewPort[fetchReq](s.name+".Out", a.eng, int(a.spec.Scheduler.QueueDepth), s.latency)
	return s
}

// activate puts qp in the round robin if it has work and is not there.
func (s *scheduler) activate(qp *QP) {
	if qp.inSched || qp.fetchBusy || qp.fetchIdx >= qp.nicPI {
		return
	}
	qp.inSched = true
	s.ring.Push(qp.num)
	s.drv.Wake()
}

// Tick makes up to ItemsPerCycle decisions.
func (s *scheduler) Tick(now sim.Tick) bool {
	if now < s.nextAccept {
		s.drv.WakeAt(s.nextAccept)
		return false
	}
	did := 0
	for did < s.ipc && s.ring.Len() > 0 {
		qp := s.a.qps[s.ring.Peek()]
		if !qp.err && !s.out.CanSend() {
			s.a.Stats.SchedulerStalls++
			break
		}
		s.ring.Drop()
		qp.inSched = false
		n := qp.nicPI - qp.fetchIdx
		n = min(n, uint64(s.a.spec.WQEFetchBatchMax))
		if qp.err { // flush: cancelled, in post order
			for range n {
				w := qp.slot(qp.fetchIdx)
				s.a.cancel(w)
				w.tFetched = now
				s.a.completion.markDone(qp, qp.fetchIdx, now)
				qp.fetchIdx++
			}
			s.a.Stats.Flushed += n
		} else {
			s.request(qp, n, now)
		}
		s.activate(qp)
		did++
	}
	if did > 0 {
		s.took(now, did)
	}
	if s.ring.Len() > 0 && (did > 0 || s.out.Len() < s.out.Cap()) {
		s.drv.WakeAt(max(s.nextAccept, now+s.period))
	}
	return false
}

// request asks the WQE fetch for up to n WRs of qp: one contiguous read
// that stops where the SQ ring wraps and where WQE-by-MMIO WRs meet
// fetched ones.
func (s *scheduler) request(qp *QP, n uint64, now sim.Tick) {
	mmio := qp.slot(qp.fetchIdx).mmio
	var c uint64
	ringEnd := (qp.slot(qp.fetchIdx).block/qp.ringBlocks + 1) * qp.ringBlocks
	for c = 0; c < n; c++ {
		w := qp.slot(qp.fetchIdx + c)
		if w.mmio != mmio || (c > 0 && w.block+uint64(w.blocks) > ringEnd) {
			break
		}
	}
	if err := s.out.Send(fetchReq{qp: qp.num, first: qp.fetchIdx, count: uint32(c), mmio: mmio}); err != nil {
		panic(err)
	}
	qp.fetchIdx += c
	qp.setFetching(now, true)
}
