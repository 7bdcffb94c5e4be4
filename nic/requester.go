package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// requester is the initiator side of the remote data path. Send, Read and
// Write execute at the MPT-update stage: the local buffer is checked; Write
// and Send read their data from host memory by DMA, then go on the wire in
// execution order. A request completes when the peer's answer has arrived
// (and, for a Read, its data has been written to host memory).
type requester struct {
	a       *Adapter
	out     []outPacket // executed, in execution order; out[head:] wait to leave
	head    int
	sent    uint64 // packets that have left: out[head] is packet number sent
	scratch []uint64
}

type outPacket struct {
	p     packet
	ready bool // its payload is on the NIC
}

// Events of requester.Handle.
const (
	reqEvPayload = 1 << evShift // payload DMA read of a Write/Send done: packet number
	reqEvPlaced  = 2 << evShift // Read data placed in host memory: qpn<<32 | slot
)

var _ sim.Handler = (*requester)(nil)

// Handle receives the payload reads and the Read data placements.
func (r *requester) Handle(now sim.Tick, arg uint64) {
	if arg&^evMask == reqEvPayload {
		r.out[r.head+int(arg&evMask-r.sent)].ready = true
		r.transmit()
		return
	}
	r.finish(r.a.qps[(arg&evMask)>>32], uint64(uint32(arg)), now)
}

// execute is the execute step of Send, Read and Write at stage s (the
// MPT update).
func (r *requester) execute(s *stage, qp *QP, w *wr, idx uint64, now sim.Tick) acceptResult {
	a := r.a
	if !w.skip && qp.cancels(idx) {
		// 5.1: the QP entered the error state before this request began
		// executing: cancelled, nothing goes on the wire.
		if w.op == OpRead {
			r.readDone(qp) // counted outstanding at validate
		}
		a.cancel(w)
	}
	if w.skip {
		w.tExec = now
		return acceptSync
	}
	access := mtt.AccessLocalRead
	if w.op == OpRead {
		access = mtt.AccessLocalWrite
	}
	pages, off, ok := r.localCheck(qp, w, access)
	if ok && w.op == OpRead && a.spec.ReadSinkRequired && w.sge.Length > 0 && !a.readSink(w.sge.Token) {
		ok = false // rule 23: the sink must be a READ_SINK registration
	}
	if !ok {
		if w.op == OpRead {
			r.readDone(qp)
		}
		a.failRequest(qp, idx, StatusAccessViolation)
		w.tExec = now
		return acceptSync
	}
	n := uint64(w.sge.Length)
	if n > 0 && w.op != OpRead && !a.dma.CanAcceptRead() {
		a.dma.AddWaker(s.drv)
		return acceptStall
	}
	w.tExec = now
	w.awaitRemote = true
	p := packet{kind: pktSendReq, dstQP: qp.peer, wrIdx: idx, va: w.remoteVA, length: n, token: w.remoteTok, inv: w.inv}
	switch w.op {
	case OpRead:
		p.kind, n = pktReadReq, 0
		a.Stats.RemoteReads++
	case OpWrite:
		p.kind = pktWriteReq
	}
	if n == 0 {
		r.out = append(r.out, outPacket{p, true})
		r.transmit()
		return acceptSync
	}
	// The payload is read from host memory by DMA, then transmitted.
	p.data = a.wire.buf(n)
	a.mem.readPages(pages, off, p.data)
	r.out = append(r.out, outPacket{p, false})
	if err := a.dma.Read(pages[0]+off, n, r, reqEvPayload|(r.sent+uint64(len(r.out)-1-r.head))); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", a.name, err))
	}
	a.Stats.DataDMABytes += n
	return acceptSync
}

// localCheck translates the request's local SGE (untimed: see docs/nic.md
// Deviations) and returns its pages, or false when the local token, PD,
// bounds or rights refuse it.
func (r *requester) localCheck(qp *QP, w *wr, access mtt.Access) ([]uint64, uint64, bool) {
	if w.sge.Length == 0 {
		return nil, 0, true
	}
	pages, off, ok := r.a.translateLocal(qp, w.sge, uint64(w.sge.Length), access, r.scratch[:0])
	r.scratch = pages[:0]
	return pages, off, ok
}

// transmit puts ready packets on the wire in execution order, so a Read
// never overtakes an earlier Write whose payload is still being read
// (requests of a connection stay in order, as RC requires), each once it
// has room in the peer's responder buffer (responder.reserve; its release
// calls transmit again).
func (r *requester) transmit() {
	peer := &r.a.wire.ends[1-r.a.wireEnd].resp
	for r.head < len(r.out) && r.out[r.head].ready && peer.reserve(r.a.eng.Now()) {
		p := r.out[r.head].p
		r.out[r.head] = outPacket{}
		r.head++
		r.sent++
		r.a.wire.send(r.a.wireEnd, p)
	}
	if r.head >= len(r.out)/2 { // keep the waiting packets at the front: memory stays bounded by them
		n := copy(r.out, r.out[r.head:])
		r.out, r.head = r.out[:n], 0
	}
}

// answer finishes a request on the peer's answer.
func (r *requester) answer(now sim.Tick, p packet) {
	a := r.a
	qp := a.qps[p.dstQP]
	w := qp.slot(p.wrIdx)
	if !w.awaitRemote {
		panic(fmt.Sprintf("nic: %s: answer for QP %d request %d that waits for none", a.name, qp.num, p.wrIdx))
	}
	switch p.kind {
	case pktNak:
		w.status = p.status
		if !qp.err {
			a.Stats.ErrorCompletions++
		}
		a.qpToError(qp, p.wrIdx+1) // 5.1, 5.4
	case pktReadResp:
		defer a.wire.release(p.data)
		cancelled := qp.cancels(p.wrIdx) // 5.1: its QP entered the error state
		if len(p.data) > 0 && cancelled {
			w.status = StatusCancelled // nothing is placed
		}
		if len(p.data) > 0 && !cancelled {
			// Place the data: checked at execute; written now, DMA charged.
			pages, off, ok := r.localCheck(qp, w, mtt.AccessLocalWrite)
			if ok {
				a.mem.writePages(pages, off, p.data)
				a.dataDMA.payload(true, r, pages[0]+off, uint64(len(p.data)), reqEvPlaced|uint64(qp.num)<<32|p.wrIdx&qp.slotMask)
				return
			}
			// The sink was invalidated while the Read was in flight: an
			// error completion, no byte placed, the QP to error (5.1).
			a.failRequest(qp, p.wrIdx, StatusAccessViolation)
		}
	}
	r.finish(qp, p.wrIdx, now)
}

// finish lets the completion engine retire a request whose remote part is
// over.
func (r *requester) finish(qp *QP, idx uint64, now sim.Tick) {
	w := qp.slot(idx)
	w.awaitRemote = false
	if w.op == OpRead {
		r.readDone(qp) // data placed (or refused): the Read has completed
	}
	if w.pipeDone {
		w.pipeDone = false
		r.a.completion.markDone(qp, idx, now)
	}
}

// readDone ends an outstanding Read of qp; READ_FENCE requests waiting at
// validate may go on when none is left (rule 6).
func (r *requester) readDone(qp *QP) {
	qp.readsOut--
	if qp.readsOut == 0 {
		r.a.hazards.wakeValidates()
	}
}
