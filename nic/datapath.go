package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// SGE is NDK_SGE: a local buffer named by its virtual address, length and
// the local token of the MR (or window) that covers it. The adapter
// reports one SGE per request (MaxInitiatorRequestSge = 1).
type SGE struct {
	VirtualAddress uint64
	Length         uint32
	Token          uint32
}

// ConnectQPs connects a and b, which must sit on the two adapters of one
// wire (NdkConnect/NdkAccept shortened to their effect: both QPs are
// connected and know their peer).
func ConnectQPs(a, b *QP) error {
	if a == nil || b == nil || a.a.wire == nil || a.a.wire != b.a.wire || a.a == b.a {
		return fmt.Errorf("nic: ConnectQPs: the QPs must be on the two adapters of one wire")
	}
	if a.connected || b.connected {
		return fmt.Errorf("nic: ConnectQPs: a QP is already connected")
	}
	a.connected, b.connected = true, true
	a.peer, b.peer = b.num, a.num
	a.hasPeer, b.hasPeer = true, true
	return nil
}

// Mem is the host memory behind this adapter (the data the data path
// moves).
func (a *Adapter) Mem() *HostMemory { return a.mem }

// Write is NdkWrite: write the local buffer sge to [remoteVA, +sge.Length)
// of the peer, under remoteToken (docs/ndk.md 2.A, 5.4).
func (a *Adapter) Write(qp *QP, ctx uint64, sge SGE, remoteVA uint64, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpWrite, kindWrite, ctx, sge, remoteVA, remoteToken, false, flags)
}

// Read is NdkRead: read [remoteVA, +sge.Length) of the peer into the local
// buffer sge.
func (a *Adapter) Read(qp *QP, ctx uint64, sge SGE, remoteVA uint64, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpRead, kindRead, ctx, sge, remoteVA, remoteToken, false, flags)
}

// Send is NdkSend: the local buffer sge goes to the peer's next posted
// receive.
func (a *Adapter) Send(qp *QP, ctx uint64, sge SGE, flags OpFlags) Status {
	return a.postData(qp, OpSend, kindSend, ctx, sge, 0, 0, false, flags)
}

// SendAndInvalidate is NdkSendAndInvalidate: a Send after which the peer
// invalidates remoteToken before it signals the receive (rule 57); the
// initiator's CQE has Type Send.
func (a *Adapter) SendAndInvalidate(qp *QP, ctx uint64, sge SGE, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpSend, kindSend, ctx, sge, 0, remoteToken, true, flags)
}

func (a *Adapter) postData(qp *QP, op OpType, k opKind, ctx uint64, sge SGE, rva uint64, rtok uint32, inv bool, flags OpFlags) Status {
	st := StatusSuccess
	switch {
	case qp == nil || qp.closed:
		st = StatusInvalidHandle
	default:
		if s, _ := ValidateOpFlags(op, flags); s != StatusSuccess {
			st = s
		} else if !qp.connected || !qp.hasPeer {
			st = StatusConnectionInvalid // rule 4
		} else if op == OpSend && flags&OpInline != 0 && sge.Length > a.info.MaxInlineDataSizeBytes {
			st = StatusInvalidParameter
		} else if qp.posted-qp.retired >= uint64(qp.depth) {
			st = StatusNoMoreEntries // 5.7
		}
	}
	if st != StatusSuccess {
		return a.inlineFailure(qp, st)
	}
	w := a.newWR(qp, op, k, flags, ctx, 1)
	w.sge, w.remoteVA, w.remoteTok, w.inv = sge, rva, rtok, inv
	a.submit(qp, flags)
	return StatusSuccess
}

// readSink reports whether the local token names an MR registered as an
// RDMA Read sink (rule 23).
func (a *Adapter) readSink(tok uint32) bool {
	mr := a.mrAt(mtt.Token(tok).Index())
	if mr == nil {
		return false
	}
	if mr.fastRegister {
		return mr.frSink
	}
	return mr.flags.ReadSink()
}

// readDone ends an outstanding Read of qp; READ_FENCE requests waiting at
// validate may go on when none is left (rule 6).
func (a *Adapter) readDone(qp *QP) {
	qp.readsOut--
	if qp.readsOut == 0 {
		for _, e := range a.engines {
			e.validate.drv.Wake()
		}
	}
}

func isData(op OpType) bool { return op == OpSend || op == OpRead || op == OpWrite }

// localCheck translates the request's local SGE (untimed: see docs/nic.md
// Deviations) and returns its pages, or false when the local token, PD,
// bounds or rights refuse it.
func (a *Adapter) localCheck(qp *QP, w *wr, access mtt.Access) ([]uint64, uint64, bool) {
	if w.sge.Length == 0 {
		return nil, 0, true
	}
	pages, off, ok := a.translateLocal(qp, w.sge, uint64(w.sge.Length), access, a.scratch[:0])
	a.scratch = pages[:0]
	return pages, off, ok
}

// execData is the execute step of Send, Read and Write at the MPT-update
// stage: the local buffer is checked; Write and Send read their data from
// host memory by DMA and then go on the wire; Read sends its request. The
// request completes when the peer's answer has arrived (and, for a Read,
// its data has been written to host memory).
func (a *Adapter) execData(qp *QP, w *wr, idx uint64, now sim.Tick) acceptResult {
	if w.skip {
		w.tExec = now
		return acceptSync
	}
	access := mtt.AccessLocalRead
	if w.op == OpRead {
		access = mtt.AccessLocalWrite
	}
	pages, off, ok := a.localCheck(qp, w, access)
	if ok && w.op == OpRead && a.spec.ReadSinkRequired && w.sge.Length > 0 && !a.readSink(w.sge.Token) {
		ok = false // rule 23: the sink must be a READ_SINK registration
	}
	if !ok {
		if w.op == OpRead {
			a.readDone(qp)
		}
		w.status, w.skip = StatusAccessViolation, true
		qp.err = true
		a.Stats.ErrorCompletions++
		a.sched.activate(qp)
		w.tExec = now
		return acceptSync
	}
	n := uint64(w.sge.Length)
	if n > 0 && w.op != OpRead && !a.dma.CanAccept() {
		a.dma.AddWaker(a.engines[qp.engine].mptUpdate.drv)
		return acceptStall
	}
	w.tExec = now
	w.awaitRemote = true
	p := packet{dstQP: qp.peer, wrIdx: idx, va: w.remoteVA, length: n, token: w.remoteTok, inv: w.inv}
	switch w.op {
	case OpRead:
		p.kind = pktReadReq
		a.Stats.RemoteReads++
		a.outReady[a.addOutbound(p)] = true
		a.sendOutbound()
		return acceptSync
	case OpWrite:
		p.kind = pktWriteReq
	default:
		p.kind = pktSendReq
	}
	if n > 0 {
		p.data = a.wire.buf(n)
		a.mem.readPages(pages, off, p.data)
	}
	if n == 0 {
		a.outReady[a.addOutbound(p)] = true
		a.sendOutbound()
		return acceptSync
	}
	// The payload is read from host memory by DMA, then transmitted.
	id := a.addOutbound(p)
	if err := a.dma.Read(pages[0]+off, n, a, evDataRead|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", a.name, err))
	}
	a.Stats.DataDMABytes += n
	return acceptSync
}

func (a *Adapter) addOutbound(p packet) int {
	id := -1
	for i := range a.outbound {
		if !a.outUsed[i] {
			id = i
			break
		}
	}
	if id < 0 {
		a.outbound = append(a.outbound, packet{})
		a.outUsed = append(a.outUsed, false)
		a.outReady = append(a.outReady, false)
		id = len(a.outbound) - 1
	}
	a.outbound[id], a.outUsed[id], a.outReady[id] = p, true, false
	a.outQ = append(a.outQ, id)
	return id
}

// dataReadDone marks a packet whose payload DMA read has completed ready.
func (a *Adapter) dataReadDone(id int) {
	a.outReady[id] = true
	a.sendOutbound()
}

// sendOutbound puts ready packets on the wire in execution order, so a
// Read never overtakes an earlier Write whose payload is still being read
// (requests of a connection stay in order, as RC requires).
func (a *Adapter) sendOutbound() {
	for len(a.outQ) > 0 && a.outReady[a.outQ[0]] {
		id := a.outQ[0]
		a.outQ = a.outQ[1:]
		p := a.outbound[id]
		a.outbound[id], a.outUsed[id], a.outReady[id] = packet{}, false, false
		a.wire.send(a.wireEnd, p)
	}
}

// receive handles a packet from the wire: requests go to the responder,
// answers to the initiator.
func (a *Adapter) receive(now sim.Tick, p packet) {
	switch p.kind {
	case pktWriteReq, pktReadReq, pktSendReq:
		a.resp.arrive(now, p)
	default:
		a.answer(now, p)
	}
}

// answer finishes an initiator request on the peer's answer.
func (a *Adapter) answer(now sim.Tick, p packet) {
	qp := a.qps[p.dstQP]
	w := qp.slot(p.wrIdx)
	if !w.awaitRemote {
		panic(fmt.Sprintf("nic: %s: answer for QP %d request %d that waits for none", a.name, qp.num, p.wrIdx))
	}
	switch p.kind {
	case pktNak:
		w.status = p.status
		if !qp.err {
			qp.err = true
			a.Stats.ErrorCompletions++
			a.sched.activate(qp)
		}
	case pktReadResp:
		defer a.wire.release(p.data)
		if len(p.data) > 0 && !qp.err {
			// Place the data: checked at execute; written now, DMA charged.
			pages, off, ok := a.localCheck(qp, w, mtt.AccessLocalWrite)
			if ok {
				a.mem.writePages(pages, off, p.data)
				a.dmaWriteTo(a, pages[0]+off, uint64(len(p.data)), evDataWrite|uint64(qp.num)<<32|uint64(p.wrIdx%uint64(qp.depth)))
				return
			}
			w.status = StatusAccessViolation
		}
	}
	a.finishRemote(qp, p.wrIdx, now)
}

// finishRemote lets the completion engine retire a request whose remote
// part is over.
func (a *Adapter) finishRemote(qp *QP, idx uint64, now sim.Tick) {
	w := qp.slot(idx)
	w.awaitRemote = false
	if w.op == OpRead {
		a.readDone(qp) // data placed (or refused): the Read has completed
	}
	if w.pipeDone {
		w.pipeDone = false
		a.completion.markDone(qp, idx, now)
	}
}

type dmaRetry struct{ a *Adapter }

// Wake issues queued data DMAs.
func (r *dmaRetry) Wake() {
	a := r.a
	for len(a.dataQ) > 0 && a.dma.CanAccept() {
		q := a.dataQ[0]
		a.dataQ[0] = dataDMAReq{}
		a.dataQ = a.dataQ[1:]
		a.issueDataDMA(q)
	}
	if len(a.dataQ) > 0 {
		a.dma.AddWaker(r)
	}
}
