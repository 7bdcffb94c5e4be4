package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// requester is the initiator side of the remote data path. Send, Read and
// Write execute at the MPT-update stage: the local buffer is checked; Write
// and Send read their data from host memory by DMA, one read per packet
// (at most the wire's MTU) as the transmit buffer has room for it
// (txBuffer), and each packet goes on the wire once its payload is on the
// NIC, in execution order within its QP (transmit). A request completes when the peer's answer has
// arrived (and, for a Read, every packet of its data has been written to
// host memory, each as it arrives).
type requester struct {
	a    *Adapter
	rnr  map[uint32]*rnrState // initiator QPs in an RNR retry, by number
	out  []outPacket          // executed, in execution order; out[head:] wait to leave
	head int
	base uint64 // packets removed from out's front: out[head] is packet number base
	// open: the message whose first packet has left and whose last has
	// not (openQP, openIdx); waiting: the peer QPs with a packet that
	// cannot leave yet, in one pass of transmit.
	open    bool
	openQP  uint32
	openIdx uint64
	waiting qpMarks
	scratch []uint64
	tx      txBuffer
	// rx holds Read response packets from when the peer sends them until
	// they are placed (rxbuffer.go); rxWaiting: the peer's responder waits
	// for room in it.
	rx        txBuffer
	rxWaiting bool
	// pend holds, in execution order, the messages whose packets wait for
	// room in tx, and the packets without payload behind them.
	pend sim.FIFO[pendMsg]
}

// pendMsg is a message whose next packets wait for room in the transmit
// buffer (its local buffer's pages are in its request's pages and fbo), or
// a packet without payload waiting behind one (segs 0).
type pendMsg struct {
	p    packet // the message's first packet, without payload
	qpn  uint32
	next uint32 // the next packet to read
	segs uint32 // the message's packets; 0: p is a packet without payload
	void bool   // not to be sent: its QP's RNR retry sends it again
}

type outPacket struct {
	gone  bool // left (or dropped): out[head] is removed once it has
	p     packet
	ready bool // its payload is on the NIC
	void  bool // not to be sent: its QP's RNR retry sends it again
}

// Events of requester.Handle.
const (
	reqEvPayload = 1 << evShift // payload DMA read of a Write/Send done: packet number
	reqEvPlaced  = 2 << evShift // Read data placed in host memory: qpn<<32 | slot
	reqEvRetry   = 3 << evShift // an RNR timer ran out: qpn
	reqEvTxFree  = 4 << evShift // packets left: room in the transmit buffer

	// reqPlacedLast marks the placement of a Read response's last packet
	// (its size is what the MTU-sized packets before it leave).
	reqPlacedLast = 1 << (evShift - 1)
)

var _ sim.Handler = (*requester)(nil)

// Handle receives the payload reads and the Read data placements; a Read
// finishes when the last packet of its response is placed.
func (r *requester) Handle(now sim.Tick, arg uint64) {
	switch arg &^ evMask {
	case reqEvPayload:
		r.out[r.head+int(arg&evMask-r.base)].ready = true
		r.transmit()
		return
	case reqEvRetry:
		r.retry(now, r.a.qps[arg&evMask])
		return
	case reqEvTxFree:
		r.tx.waking = false
		r.readPending(now)
		return
	}
	qp := r.a.qps[(arg&evMask&^reqPlacedLast)>>32]
	idx := uint64(uint32(arg))
	w := qp.slot(idx)
	r.rxFree(now, r.placedBytes(w, arg))
	if w.segsLeft > 1 {
		w.segsLeft--
		return
	}
	r.finish(qp, idx, now)
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
	pages, off, ok := r.localCheck(qp, w, localAccess(w.op))
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
	if w.op == OpRead {
		a.Stats.RemoteReads++
	}
	if len(r.rnr) > 0 && r.holds(qp) {
		return acceptSync // sent with the QP's RNR retry
	}
	p := r.request(qp, w, idx)
	if p.kind == pktReadReq || n == 0 {
		r.queueBare(p)
		r.transmit()
		return acceptSync
	}
	r.readPayload(now, qp, w, p, pages, off)
	return acceptSync
}

// queueBare queues packet p, which has no payload, to leave in order:
// behind the messages waiting for room in the transmit buffer, if any.
func (r *requester) queueBare(p packet) {
	if r.pend.Len() > 0 {
		r.pend.Push(pendMsg{p: p})
		r.wakeOnFree()
		return
	}
	r.out = append(r.out, outPacket{p: p, ready: true})
}

// localAccess is the right a request of op needs on its local buffer: a
// Read writes it, a Send or Write reads it.
func localAccess(op OpType) mtt.Access {
	if op == OpRead {
		return mtt.AccessLocalWrite
	}
	return mtt.AccessLocalRead
}

// request is the first packet of request idx of qp (without its payload);
// a Read expects its response's packets from now on.
func (r *requester) request(qp *QP, w *wr, idx uint64) packet {
	p := packet{kind: pktSendReq, dstQP: qp.peer, wrIdx: idx, va: w.remoteVA, length: uint64(w.sge.Length), token: w.remoteTok, inv: w.inv}
	switch w.op {
	case OpRead:
		p.kind = pktReadReq
		w.segsLeft = uint32(r.a.wire.spec.segments(p.length))
	case OpWrite:
		p.kind = pktWriteReq
	}
	return p
}

// readPayload cuts the message p of request w of qp (p.length bytes,
// whose buffer starts off bytes into pages[0]) into packets and reads each
// one's payload from host memory by DMA as the transmit buffer has room;
// each is transmitted when its read is done. The packets that do not fit
// wait, in order, behind any message already waiting (readPending).
func (r *requester) readPayload(now sim.Tick, qp *QP, w *wr, p packet, pages []uint64, off uint64) {
	segs, k := uint32(r.a.wire.spec.segments(p.length)), uint32(0)
	if r.pend.Len() == 0 {
		k = r.readSegs(now, p, pages, off, 0, segs, true)
		if k == segs {
			return
		}
	}
	w.pages, w.fbo = append(w.pages[:0], pages...), off
	r.pend.Push(pendMsg{p: p, qpn: qp.num, next: k, segs: segs})
	r.a.Stats.TxBufferWaits++
	r.wakeOnFree()
}

// readSegs reads the payload of message p's packets from k on, up to
// segs, while the transmit buffer has room, and returns the first it could
// not read. direct: the DMA engine has room for the first read (execute
// asked it), so it goes there at once; the rest queue in order behind the
// data path's other DMAs while the engine is full.
func (r *requester) readSegs(now sim.Tick, p packet, pages []uint64, off uint64, k, segs uint32, direct bool) uint32 {
	a := r.a
	r.tx.settle(now)
	for ; k < segs; k++ {
		o, l := a.wire.spec.segment(p.length, uint64(k))
		if !r.tx.take(now, l) {
			break
		}
		pg, po := pagesAt(pages, off, o)
		p.seg, p.more, p.data = k, k+1 < segs, a.wire.buf(l)
		a.mem.readPages(pg, po, p.data)
		r.out = append(r.out, outPacket{p: p})
		arg := reqEvPayload | (r.base + uint64(len(r.out)-1-r.head))
		a.Stats.DataDMABytes += l
		if !direct || k > 0 || !a.dma.CanAcceptRead() {
			a.dataDMA.submit(false, r, pg[0]+po, l, arg)
		} else if err := a.dma.Read(pg[0]+po, l, r, arg); err != nil {
			panic(fmt.Sprintf("nic: %s: DMA read refused after CanAccept: %v", a.name, err))
		}
	}
	return k
}

// readPending reads the waiting messages' packets, in order, while the
// transmit buffer has room, and queues the packets without payload behind
// them as their turn comes.
func (r *requester) readPending(now sim.Tick) {
	for r.pend.Len() > 0 {
		m := r.pend.Front()
		switch {
		case m.void:
		case m.segs == 0:
			r.out = append(r.out, outPacket{p: m.p, ready: true})
		default:
			w := r.a.qps[m.qpn].slot(m.p.wrIdx)
			if m.next = r.readSegs(now, m.p, w.pages, w.fbo, m.next, m.segs, false); m.next < m.segs {
				r.wakeOnFree()
				r.transmit()
				return
			}
		}
		r.pend.Pop()
	}
	r.tx.idle(now)
	r.transmit()
}

// wakeOnFree asks for a wake-up while messages wait (txBuffer.wake): now
// when the first waiting packet fits the transmit buffer (room freed by a
// packet that will not be sent, or a packet without payload at the head),
// else when the buffer next frees bytes; transmit asks again as packets
// leave.
func (r *requester) wakeOnFree() {
	if r.pend.Len() == 0 || r.tx.waking {
		return
	}
	r.tx.wake(r.a.eng, r.headFits(r.a.eng.Now()), r, reqEvTxFree)
}

// headFits reports whether the first waiting packet can go now: it has
// no payload, its message will not be sent, or its payload fits.
func (r *requester) headFits(now sim.Tick) bool {
	m := r.pend.Front()
	if m.void || m.segs == 0 {
		return true
	}
	r.tx.settle(now)
	_, l := r.a.wire.spec.segment(m.p.length, uint64(m.next))
	return r.tx.used+l <= r.tx.max
}

// pagesAt is the page list and offset of byte k of a buffer that starts
// off bytes into pages[0].
func pagesAt(pages []uint64, off, k uint64) ([]uint64, uint64) {
	b := off + k
	return pages[b/PageSizeBytes:], b % PageSizeBytes
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

// transmit puts ready packets on the wire: in execution order within a
// QP, so a Read never overtakes an earlier Write of its QP whose payload
// is still being read (requests of a connection stay in order, as RC
// requires), while a ready packet of another QP may go ahead of one whose
// payload read is not done. A message's packets leave back to back: once
// its first has left, nothing else leaves before its last. Each message
// leaves once it has room in the peer's responder buffer
// (responder.reserve, for its first packet; its release calls transmit
// again).
func (r *requester) transmit() {
	peer := &r.a.wire.ends[1-r.a.wireEnd].resp
	now := r.a.eng.Now()
	full := false
	r.waiting.pass()
	for k := r.head; k < len(r.out); k++ {
		o := &r.out[k]
		if o.gone {
			continue
		}
		q := o.p.dstQP
		if r.open && (q != r.openQP || o.p.wrIdx != r.openIdx) {
			continue // another message's packets leave after the open one's
		}
		if !o.ready || r.waiting.marked(q) {
			if r.open {
				break
			}
			r.waiting.mark(q)
			continue
		}
		if !o.void && o.p.seg == 0 && (full || !peer.reserve(now)) {
			full = true
			r.waiting.mark(q)
			continue
		}
		r.send(o)
	}
	for r.head < len(r.out) && r.out[r.head].gone {
		r.out[r.head] = outPacket{}
		r.head++
		r.base++
	}
	if r.head >= len(r.out)/2 { // keep the waiting packets at the front: memory stays bounded by them
		n := copy(r.out, r.out[r.head:])
		r.out, r.head = r.out[:n], 0
	}
	if r.pend.Len() > 0 {
		r.wakeOnFree()
	}
}

// send puts packet o on the wire (or drops it, void) and marks it gone.
func (r *requester) send(o *outPacket) {
	p, void := o.p, o.void
	o.gone, o.p.data = true, nil
	r.open, r.openQP, r.openIdx = p.more && !void, p.dstQP, p.wrIdx
	n := uint64(len(p.data))
	if void {
		if n > 0 {
			r.tx.drop(r.a.eng.Now(), n)
		}
		r.a.wire.release(p.data)
		return
	}
	if end := r.a.wire.send(r.a.wireEnd, p); n > 0 {
		r.tx.leaves(end, n)
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
	case pktRnrNak:
		r.rnrNak(now, qp, p.wrIdx, p.rnrNS)
		return
	case pktNak:
		w.status = p.status
		if !qp.err {
			a.Stats.ErrorCompletions++
		}
		a.qpToError(qp, p.wrIdx+1) // 5.1, 5.4
	case pktReadResp:
		defer a.wire.release(p.data)
		if r.place(qp, w, &p) {
			return // finished when the data is placed
		}
		if n := uint64(len(p.data)); n > 0 {
			r.rxFree(now, n) // not placed: its room frees as it arrives
		}
		if w.segsLeft--; w.segsLeft > 0 {
			return // more packets of the response follow
		}
	}
	r.finish(qp, p.wrIdx, now)
}

// place writes the data of Read response packet p to the request's local
// buffer (checked at execute; written now, DMA charged) and reports
// whether it did. The response's first packet decides for the whole
// response, so that a Read places all its bytes or none: nothing is placed
// for a request that is cancelled (5.1: its QP entered the error state)
// when its first packet arrives, nor when the sink was invalidated while
// the Read was in flight, which is an error completion with the QP to
// error (5.1); the first packet keeps the sink's pages for the others.
func (r *requester) place(qp *QP, w *wr, p *packet) bool {
	a := r.a
	if len(p.data) == 0 || p.seg > 0 && w.status != StatusSuccess {
		return false
	}
	if p.seg == 0 && !r.checkSink(qp, w, p.wrIdx) {
		return false
	}
	o, n := a.wire.spec.segment(p.length, uint64(p.seg))
	pages, off := pagesAt(w.pages, w.fbo, o)
	a.mem.writePages(pages, off, p.data)
	arg := reqEvPlaced | uint64(qp.num)<<32 | p.wrIdx&qp.slotMask
	if !p.more {
		arg |= reqPlacedLast
	}
	a.dataDMA.payload(true, r, pages[0]+off, n, arg)
	return true
}

// checkSink checks Read idx's local sink as its response begins: not
// cancelled, still granted for local write; it keeps the sink's pages in
// the request (w.pages, w.fbo: a Read has no page list of its own).
func (r *requester) checkSink(qp *QP, w *wr, idx uint64) bool {
	if w.status != StatusSuccess {
		return false
	}
	if qp.cancels(idx) {
		w.status = StatusCancelled
		return false
	}
	pages, off, ok := r.localCheck(qp, w, mtt.AccessLocalWrite)
	if !ok {
		r.a.failRequest(qp, idx, StatusAccessViolation)
		return false
	}
	w.pages, w.fbo = append(w.pages[:0], pages...), off
	return true
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
