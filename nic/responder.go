package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// responder is the NIC's receive side of the remote data path. Requests
// from the wire are taken in arrival order; a Read or Write is translated
// through the TPT's timed translator (mtt.Translator.Lookup: MPT and MTT
// cache misses cost PCIe reads) and the whole range is checked - token,
// PD, the window's QP, rights, bounds, wrap - at the message's first
// packet, before any byte moves (docs/ndk.md 5.4). Translations of several
// requests overlap; data DMAs start in arrival order. Answers leave in
// arrival order within a QP (answerDone): an ACK or NAK of one QP does not
// wait for an earlier request of another QP to finish, while a Read's
// response packets leave only once every request before it is answered. A
// message of several packets moves packet by packet
// (rxsegments.go): a Write's or Send's packets are placed as they arrive
// once the message is checked, and a Read's response packets leave as
// their DMA reads finish.
//
// The responder is a resource with a rate and a bounded buffer: packets
// are served in arrival order, a message's Responder.ItemsPerCycle at a
// time for Responder.IntervalCycles cycles, or their payload at
// ResponderBytesPerCycle, whichever is longer (a message's first packet is
// checked Responder.LatencyCycles after its service starts, or
// when its service ends, if later). Its receive buffer holds
// Responder.QueueDepth messages, from the first packet's arrival until the
// answer leaves; the peer's requester sends a request only when it has
// reserved room there (link-level flow control: a full responder stops the
// far requester, not the wire).
//
// A refused request moves no byte: the responder's QP goes to the error
// state (its receives are flushed with STATUS_CANCELLED) and the initiator
// gets a NAK that completes its request with RemoteAccessErrorStatus; the
// initiator's QP goes to error too, so the rest of both queues completes
// with STATUS_CANCELLED (5.1, 5.4). Requests arriving on a QP in the error
// state are answered "flushed" (STATUS_CANCELLED).
type responder struct {
	a     *Adapter
	ops   []*rxOp // pool of pointers: the translator holds &op.req
	free  []int
	q     sim.FIFO[int] // op ids in arrival order
	retry bool          // a retry event is scheduled
	// rnrWait holds the QPs that answered a Send with an RNR NAK, with the
	// Send they wait for (rnr.go).
	rnrWait map[uint32]uint64
	held    int // buffer slots reserved by the peer or in use
	freeAt  sim.Tick
	meter   *sim.Meter // service time
	buffer  *sim.Meter // receive buffer slots held
	// tx holds the payloads of Read response packets from their DMA read
	// until they have left on the wire; reads holds, oldest first, the
	// Reads whose later response packets wait for room in it.
	tx    txBuffer
	reads sim.FIFO[int]
	// invWrites holds the key indexes whose MPT entries a
	// SendAndInvalidate invalidated and that wait for a TPT write slot.
	invWrites sim.FIFO[uint32]
	// waiting: the QPs with a request not answered yet, in one pass of
	// answerDone.
	waiting qpMarks
}

func (r *responder) init(a *Adapter) {
	r.a = a
	r.meter = a.meter(a.name+".Responder", "items/interval", 1)
	r.buffer = a.meter(a.name+".Responder.Buffer", "messages", uint64(a.spec.Responder.QueueDepth))
	r.buffer.TrackWaits()
	r.tx.init(a, a.name+".Responder.TxBuffer", a.spec.TxBufferBytes)
}

// reserve takes a buffer slot for a request the peer is about to send;
// false when the buffer is full (the peer waits for release).
func (r *responder) reserve(now sim.Tick) bool {
	if r.held >= int(r.a.spec.Responder.QueueDepth) {
		r.a.Stats.ResponderFull++
		r.buffer.Waits(now, true)
		return false
	}
	r.held++
	r.buffer.Set(now, uint64(r.held))
	r.buffer.Waits(now, false)
	return true
}

// release frees the buffer slot of a message whose answer has left and
// lets the peer's requester send what it holds.
func (r *responder) release(now sim.Tick) {
	r.held--
	r.buffer.Set(now, uint64(r.held))
	r.buffer.Waits(now, false) // a request still waiting is refused again now
	if w := r.a.wire; w != nil {
		w.ends[1-r.a.wireEnd].req.transmit()
	}
}

// serve times packet p's service and returns when it may be checked (or,
// after a message's first packet, moved). The packets of a message are
// taken Responder.ItemsPerCycle at a time: the first of each such group
// costs Responder.IntervalCycles, the others ride with it, so a message of
// n packets takes ceil(n/ItemsPerCycle) intervals.
func (r *responder) serve(now sim.Tick, p *packet) sim.Tick {
	a := r.a
	sp := &a.spec.Responder
	var cycles uint64
	if p.seg%sp.ItemsPerCycle == 0 {
		cycles = uint64(sp.IntervalCycles)
	}
	cycles = max(cycles, (uint64(len(p.data))+uint64(a.spec.ResponderBytesPerCycle)-1)/uint64(a.spec.ResponderBytesPerCycle))
	start := max(a.clock.NextEdge(now), r.freeAt)
	r.freeAt = start + sim.Tick(cycles)*a.clock.Period
	r.meter.Busy(start, r.freeAt)
	return max(r.freeAt, start+sim.Tick(sp.LatencyCycles)*a.clock.Period)
}

type rxState uint8

const (
	rxServe rxState = iota // waiting for, or in, the responder's service
	rxNew
	rxLookup
	rxReady // checked (or needs no check): may start its data movement
	rxDMA
	rxDone
)

type rxOp struct {
	p        packet
	req      mtt.Request
	state    rxState
	nak      Status // non-zero: answer with a NAK of this status
	rnr      bool   // answer with an RNR NAK (rnr.go)
	drop     bool   // dropped: its QP waits for a Send it answered with an RNR NAK
	qpErr    bool   // the refusal puts the responder's QP in error
	recv     recvWR // Send: the receive it took
	hasRcv   bool
	rcvSt    Status // the taken receive's status (it failed its own check: not STATUS_SUCCESS)
	pages    []uint64
	off      uint64
	segs     uint32   // packets of the message (of its response, for a Read)
	nread    uint32   // Read: response packets whose DMA read has started
	in       uint32   // Write, Send: packets served
	moved    uint32   // Write, Send: packets whose DMA write has started; Read: response packets sent
	done     uint32   // Write, Send: packets placed
	data     [][]byte // Write, Send: each packet's payload until placed; Read: each response packet's bytes, taken when its DMA starts
	rdone    []uint64 // Read: response packets whose DMA read is done, a bit each
	answered bool     // answered; it leaves the queue when it reaches the head
}

var _ sim.Handler = (*responder)(nil)

// Responder events (arg of responder.Handle).
const (
	rxEvLookup = 1 << evShift
	rxEvDMA    = 2 << evShift
	rxEvRetry  = 3 << evShift
	rxEvServed = 4 << evShift // a message's first packet served
	rxEvMore   = 5 << evShift // a later packet served
	rxEvTxFree = 6 << evShift // response packets left: room in the transmit buffer
	rxEvRxRoom = 7 << evShift // room in the peer requester's receive buffer
)

// arrive takes a packet from the wire: a message's first packet begins a
// request, a later one joins its message (arriveMore).
func (r *responder) arrive(now sim.Tick, p packet) {
	if p.seg > 0 {
		r.arriveMore(now, p)
		return
	}
	var id int
	if n := len(r.free); n > 0 {
		id = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		r.ops = append(r.ops, new(rxOp))
		id = len(r.ops) - 1
	}
	o := r.ops[id]
	pages, reqPages, data, rdone := o.pages[:0], o.req.Pages[:0], o.data[:0], o.rdone[:0]
	*o = rxOp{p: p, pages: pages, data: data, rdone: rdone}
	o.req.Pages = reqPages
	o.segs = uint32(r.a.wire.spec.segments(p.length))
	r.q.Push(id)
	r.a.Stats.RemoteRequests++
	at := r.serve(now, &o.p)
	if p.kind != pktReadReq {
		o.data = append(o.data, o.p.data)
		o.p.data = nil
	}
	r.a.eng.Schedule(at, sim.PrioDefault, r, rxEvServed|uint64(id))
}

// Handle receives translation and DMA completions.
func (r *responder) Handle(now sim.Tick, arg uint64) {
	switch arg {
	case rxEvRetry:
		r.retry = false
		r.pump(now)
		return
	case rxEvTxFree:
		r.tx.waking = false
		r.readMore(now)
		return
	case rxEvRxRoom:
		r.pump(now)
		return
	}
	id := int(uint32(arg))
	o := r.ops[id]
	switch arg &^ evMask {
	case rxEvLookup:
		o.state = rxReady
		if o.req.Reason != mtt.OK {
			o.nak, o.qpErr = r.a.spec.RemoteAccessErrorStatus, true
			r.a.Stats.RemoteRefused[o.req.Reason]++
		} else {
			o.pages, o.off = append(o.pages[:0], o.req.Pages...), o.req.Offset
		}
	case rxEvDMA:
		r.dmaDone(o, (arg&evMask)>>32)
	case rxEvServed:
		o.state, o.in = rxNew, 1
	case rxEvMore:
		r.served(id)
	default:
		panic(fmt.Sprintf("nic: %s: unknown responder event %#x", r.a.name, arg))
	}
	r.pump(now)
}

// pump starts translations in order, starts data movement in order, and
// sends answers in order.
func (r *responder) pump(now sim.Tick) {
	inOrder := true
	for k := range r.q.Len() {
		id := r.q.At(k)
		o := r.ops[id]
		if o.state == rxNew && !r.start(id) {
			break // translator full: later requests wait (in order); retried
		}
		if o.state == rxReady && inOrder {
			r.issue(now, id)
		}
		if o.state != rxDMA && o.state != rxDone {
			inOrder = false
		}
	}
	r.answerDone(now)
}

// answerDone sends the answers of the finished requests: in arrival order
// within a QP, while a finished request of one QP need not wait for an
// earlier one of another; a Read's response leaves only from the head of
// the queue. Answered requests leave the queue (and free their op) when
// they reach its head.
func (r *responder) answerDone(now sim.Tick) {
	front := true // every request before this one is answered
	r.waiting.pass()
	for k := 0; k < r.q.Len(); k++ {
		id := r.q.At(k)
		o := r.ops[id]
		if o.answered {
			continue
		}
		if front && o.state == rxDMA && o.p.kind == pktReadReq {
			r.respond(id)
		}
		q := o.p.dstQP
		if o.state != rxDone || o.p.kind == pktReadReq && !front || r.waiting.marked(q) {
			r.waiting.mark(q)
			front = false
			continue
		}
		o.answered = true
		r.answer(now, id)
	}
	for r.q.Len() > 0 && r.ops[r.q.Peek()].answered {
		r.free = append(r.free, r.q.Pop())
	}
}

// start classifies a new request and starts its translation; false when
// the translator has no free slot.
func (r *responder) start(id int) bool {
	a := r.a
	o := r.ops[id]
	qp := a.qps[o.p.dstQP]
	if qp.err || qp.closed {
		o.nak, o.state = StatusCancelled, rxReady
		return true
	}
	if o.p.kind == pktSendReq {
		o.state = rxReady
		return true
	}
	if o.p.length == 0 {
		o.state = rxReady // 5.4: zero length moves nothing, checks no token
		return true
	}
	if !a.tpt.CanAccept() {
		// The translator frees a slot when one of its lookups finishes;
		// ours call pump, and a retry a cycle later covers the others.
		if !r.retry {
			r.retry = true
			a.eng.After(a.clock.Period, sim.PrioDefault, r, rxEvRetry)
		}
		a.Stats.RemoteTranslateStalls++
		return false
	}
	acc := mtt.AccessRemoteRead
	if o.p.kind == pktWriteReq {
		acc = mtt.AccessRemoteWrite
	}
	o.req.Token, o.req.PD, o.req.QPN = mtt.Token(o.p.token), qp.pd.handle, qp.num
	o.req.VA, o.req.Length, o.req.Access = o.p.va, o.p.length, acc
	if err := a.tpt.Lookup(&o.req, r, rxEvLookup|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: Lookup refused after CanAccept: %v", a.name, err))
	}
	o.state = rxLookup
	return true
}

// issue starts the data movement of a checked request.
func (r *responder) issue(now sim.Tick, id int) {
	a := r.a
	o := r.ops[id]
	qp := a.qps[o.p.dstQP]
	if len(r.rnrWait) > 0 && r.rnrDrops(o, qp) {
		o.drop, o.state = true, rxDone
		return
	}
	if o.nak == 0 && qp.err {
		o.nak = StatusCancelled // an earlier request of this QP failed
	}
	if o.nak != 0 {
		if o.qpErr {
			a.refusedBy(qp)
		}
		o.state = rxDone
		return
	}
	n := o.p.length
	switch o.p.kind {
	case pktWriteReq:
		if n == 0 {
			o.state = rxDone
			return
		}
		o.state = rxDMA
		r.place(id)
	case pktReadReq:
		if n == 0 {
			o.state = rxDone
			return
		}
		o.state = rxDMA
		r.read(now, id)
	case pktSendReq:
		r.issueSend(now, id)
	}
}

// issueSend places a Send in the next posted receive; SendAndInvalidate
// checks the token it must invalidate first (rule 57: an invalid token
// aborts the connection). The receive's own checks come next: a buffer
// too small for the message completes it STATUS_BUFFER_OVERFLOW (ND
// `IND2QueuePair.md`), a buffer its token does not grant for local write
// (dead token, an MR of another PD, no local-write right, out of bounds)
// STATUS_ACCESS_VIOLATION (docs/ndk.md §5.1); either way the receive is
// consumed with that error, the sender gets STATUS_REMOTE_RESOURCES and the
// QP goes to the error state, so only the receives behind it complete
// STATUS_CANCELLED.
func (r *responder) issueSend(now sim.Tick, id int) {
	a := r.a
	o := r.ops[id]
	qp := a.qps[o.p.dstQP]
	if o.p.inv && !a.canRemoteInvalidate(qp, mtt.Token(o.p.token)) {
		a.Stats.RemoteInvalidateRefused++
		r.refuse(o, qp, a.spec.RemoteAccessErrorStatus)
		return
	}
	if qp.rqHead == qp.rqTail {
		r.rnrNak(o, qp) // no receive posted: the initiator sends it again (rnr.go)
		return
	}
	rw := qp.rq[qp.rqHead%uint64(len(qp.rq))]
	n := o.p.length
	if n > uint64(rw.sge.Length) {
		r.refuseReceive(o, qp, rw, StatusBufferOverflow)
		return
	}
	var pages []uint64
	var off uint64
	if n > 0 {
		var ok bool
		pages, off, ok = a.translateLocal(qp, rw.sge, n, mtt.AccessLocalWrite, o.pages[:0])
		o.pages = pages
		if !ok {
			r.refuseReceive(o, qp, rw, StatusAccessViolation)
			return
		}
	}
	r.takeReceive(o, qp, rw, StatusSuccess)
	if n == 0 {
		o.state = rxDone
		return
	}
	o.pages, o.off, o.state = pages, off, rxDMA
	r.place(id)
}

// takeReceive gives the receive at the head of qp's queue to the Send o;
// it completes with st when o is answered, in arrival order, so receives
// complete in post order (errorstate.go).
func (r *responder) takeReceive(o *rxOp, qp *QP, rw recvWR, st Status) {
	qp.rqHead++
	qp.rqTaken++
	o.recv, o.hasRcv, o.rcvSt = rw, true, st
}

// refuseReceive takes the receive at the head of qp's queue, to complete
// with st (it failed its own check), then refuses the Send: the receives
// behind it are cancelled by the error state.
func (r *responder) refuseReceive(o *rxOp, qp *QP, rw recvWR, st Status) {
	r.takeReceive(o, qp, rw, st)
	r.refuse(o, qp, StatusRemoteResources)
}

// refuse answers o with a NAK of st and puts qp in the error state.
func (r *responder) refuse(o *rxOp, qp *QP, st Status) {
	o.nak, o.state = st, rxDone
	r.a.refusedBy(qp)
}

// answer sends the answer of a finished request and, for a Send, signals
// the receive (after the invalidation, rule 57).
func (r *responder) answer(now sim.Tick, id int) {
	a := r.a
	o := r.ops[id]
	qp := a.qps[o.p.dstQP]
	ans, send := packet{dstQP: qp.peer, wrIdx: o.p.wrIdx}, true
	switch {
	case o.drop:
		send = false
	case o.rnr:
		ans.kind, ans.rnrNS = pktRnrNak, a.spec.RNRTimerNS
	case o.nak != 0:
		ans.kind, ans.status = pktNak, o.nak
	case o.p.kind == pktReadReq:
		// A Read of no bytes answers with one empty packet; a longer one's
		// response packets have left already (respond).
		ans.kind, send = pktReadResp, o.moved == 0
	default:
		ans.kind = pktAck
	}
	if o.hasRcv {
		r.completeReceive(o, qp)
	}
	if send {
		a.wire.send(a.wireEnd, ans)
	}
	for k, b := range o.data {
		a.wire.release(b) // a refused message's payloads
		o.data[k] = nil
	}
	r.release(now)
}

// completeReceive writes the completion of the receive o took: on
// success after the invalidation a SendAndInvalidate asks for (rule 57),
// with the message's length; then the receives the error state holds back
// behind it may complete (errorstate.go).
func (r *responder) completeReceive(o *rxOp, qp *QP) {
	a := r.a
	typ, spec, n := OpReceive, uint64(0), uint32(0)
	if o.rcvSt == StatusSuccess {
		n = uint32(o.p.length)
		if o.p.inv {
			a.remoteInvalidate(mtt.Token(o.p.token))
			typ, spec = OpReceiveAndInvalidate, uint64(o.p.token)
		}
	}
	a.writeRecvCQE(qp, o.recv, o.rcvSt, n, typ, spec)
	a.takenReceiveDone(qp)
}

// refusedBy puts the responder's QP in the error state after it refused
// a request (5.1, 5.4; counted as an error of the QP).
func (a *Adapter) refusedBy(qp *QP) {
	if !qp.err {
		a.Stats.ErrorCompletions++
	}
	a.qpToError(qp, 0)
}
