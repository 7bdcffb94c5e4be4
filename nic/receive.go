package nic

// recvWR is one posted receive (NdkReceive).
type recvWR struct {
	ctx uint64
	sge SGE
}

// Receive is NdkReceive: post a receive buffer on qp's receive queue. It
// may be posted before the QP is connected (rule 4). The model keeps the
// receive queue in the provider's and NIC's shared record: posting costs no
// PCIe traffic (see docs/nic.md Deviations). A full receive queue is
// STATUS_NO_MORE_ENTRIES; a QP in the error state completes the receive
// with STATUS_CANCELLED at once, or, while a receive taken by a message is
// still being placed, right after that one (docs/ndk.md §5.1).
func (a *Adapter) Receive(qp *QP, ctx uint64, sge SGE) Status {
	if qp == nil || qp.closed {
		return StatusInvalidHandle
	}
	if qp.rqDepth == 0 || qp.rqTail-qp.rqHead >= uint64(qp.rqDepth) {
		return StatusNoMoreEntries
	}
	if qp.rq == nil {
		qp.rq = make([]recvWR, qp.rqDepth)
	}
	qp.rq[qp.rqTail%uint64(len(qp.rq))] = recvWR{ctx: ctx, sge: sge}
	qp.rqTail++
	if qp.err {
		a.flushReceives(qp) // cancelled at once, behind any receive still being placed
		return StatusSuccess
	}
	a.cores.work(a.cores.core(qp), a.spec.PostWQEBuildPS) // the receive WQE

	return StatusSuccess
}

// writeRecvCQE writes the CQE of a receive to the QP's receive CQ by DMA.
// A full CQ drops it and counts an overrun (the model does not stall
// receives).
func (a *Adapter) writeRecvCQE(qp *QP, rw recvWR, st Status, bytes uint32, typ OpType, spec uint64) {
	cq := qp.rcq
	if cq.full() {
		a.Stats.CQOverruns++
		return
	}
	now := a.eng.Now()
	slot := cq.push(cqEntry{
		res:   Result{Status: st, BytesTransferred: bytes, QPContext: qp.ctx, RequestContext: rw.ctx, Type: typ, TypeSpecific: spec},
		qp:    qp,
		recv:  true,
		tPost: now,
		kind:  kindReceive,
	})
	a.Stats.Ops[kindReceive].Completed++
	a.Stats.Ops[kindReceive].LastRetire = now
	a.Stats.CQEs++
	addr, n := cq.cqeAddr(slot)
	a.Stats.addBytes(kindReceive, purposeCQE, n)
	a.dataDMA.submit(true, a.completion, addr, n, uint64(cq.num)<<32|uint64(slot))
}
