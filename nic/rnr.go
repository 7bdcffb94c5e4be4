package nic

import (
	"github.com/nicsim/nicsim/sim"
)

// Receiver-not-ready retry (docs/sources.md 12). A Send that finds no
// receive posted is answered with an RNR NAK; the responder then drops the
// requests of that QP that arrive before the Send comes again (they were
// sent before the initiator learnt of the NAK). The initiator holds the
// QP's requests for Spec.RNRTimerNS, then sends the Send and every later
// request of the QP it had executed again, in order, each read again from
// host memory. Past Spec.RNRRetry NAKs of one request (unless unlimited)
// the request completes STATUS_REMOTE_RESOURCES and the connection is torn
// down, as for the other remote failures (docs/ndk.md 5.4): both QPs go to
// error, and the requests the responder dropped behind it complete
// STATUS_CANCELLED.

// rnrNak answers Send o on qp with an RNR NAK: no receive is taken, the
// QP stays connected, and the QP's requests wait for the Send again.
func (r *responder) rnrNak(o *rxOp, qp *QP) {
	o.rnr, o.state = true, rxDone
	if r.rnrWait == nil {
		r.rnrWait = map[uint32]uint64{}
	}
	r.rnrWait[qp.num] = o.p.wrIdx
	r.a.Stats.RNRNaks++
}

// rnrDrops reports whether request o of qp arrived while the QP waits for
// a Send it answered with an RNR NAK, and is not that Send: it is dropped.
func (r *responder) rnrDrops(o *rxOp, qp *QP) bool {
	idx, ok := r.rnrWait[qp.num]
	if !ok {
		return false
	}
	if o.p.wrIdx == idx {
		delete(r.rnrWait, qp.num)
		return false
	}
	r.a.Stats.RNRDropped++
	return true
}

// rnrState is an initiator QP's RNR retry: the request an RNR NAK named,
// how many NAKs it has had, and whether the QP's requests are held.
type rnrState struct {
	from    uint64
	naks    uint32
	holding bool
	held    sim.Tick // the QP's time held, up to since
	since   sim.Tick // when the current hold began
}

// RNRHeld is how long qp's requests have been held for RNR retries so far:
// the time its Sends waited for a receive at the peer (bound_by's
// rnr_wait).
func (a *Adapter) RNRHeld(qp *QP) sim.Tick {
	st := a.req.rnr[qp.num]
	if st == nil {
		return 0
	}
	if st.holding {
		return st.held + a.eng.Now() - st.since
	}
	return st.held
}

// holds reports whether qp's requests are held for an RNR retry.
func (r *requester) holds(qp *QP) bool {
	st := r.rnr[qp.num]
	return st != nil && st.holding
}

// rnrNak takes an RNR NAK of request idx of qp carrying the responder's
// timer: the QP's requests are held and sent again after it, or, past the
// retry limit, the request fails.
func (r *requester) rnrNak(now sim.Tick, qp *QP, idx, timerNS uint64) {
	a := r.a
	if r.rnr == nil {
		r.rnr = map[uint32]*rnrState{}
	}
	st := r.rnr[qp.num]
	if st == nil {
		st = &rnrState{}
		r.rnr[qp.num] = st
	}
	if st.from != idx || st.naks == 0 {
		st.from, st.naks = idx, 0
	}
	st.naks++
	if a.spec.RNRRetry != RNRRetryUnlimited && st.naks > a.spec.RNRRetry {
		st.naks = 0
		r.rnrExceeded(now, qp, idx)
		return
	}
	st.holding, st.since = true, now
	r.void(qp, idx)
	a.eng.After(sim.Tick(timerNS)*sim.NS, sim.PrioDefault, r, reqEvRetry|uint64(qp.num))
}

// void marks qp's packets from request idx on that have not left yet: they
// are not sent (transmit skips them) and go again with the retry. A message
// of them whose first packets have left is no longer open: its other
// packets will not follow, and other messages may leave.
func (r *requester) void(qp *QP, idx uint64) {
	if r.open && r.openQP == qp.peer && r.openIdx >= idx {
		r.open = false
	}
	for k := r.head; k < len(r.out); k++ {
		if p := &r.out[k].p; p.dstQP == qp.peer && p.wrIdx >= idx {
			r.out[k].void = true
		}
	}
	for k := range r.pend.Len() {
		if m := r.pend.Slot(k); m.p.dstQP == qp.peer && m.p.wrIdx >= idx {
			m.void = true
		}
	}
	r.wakeOnFree() // the first waiting message may be one of them
}

// rnrExceeded fails request idx of qp, past its RNR retries, tears the
// connection down (the peer QP to error) and cancels the requests after
// it: the responder, still waiting for the Send, drops those on the wire
// without an answer.
func (r *requester) rnrExceeded(now sim.Tick, qp *QP, idx uint64) {
	a := r.a
	peer := a.wire.ends[1-a.wireEnd]
	peer.refusedBy(peer.qps[qp.peer])
	w := qp.slot(idx)
	w.status = StatusRemoteResources
	if !qp.err {
		a.Stats.ErrorCompletions++
	}
	a.qpToError(qp, idx+1)
	r.finish(qp, idx, now)
	r.eachSent(qp, idx+1, func(i uint64, w *wr) {
		w.status = StatusCancelled
		r.finish(qp, i, now)
	})
}

// retry sends qp's held requests again, from the one the RNR NAK named;
// those its error state cancels meanwhile complete STATUS_CANCELLED.
func (r *requester) retry(now sim.Tick, qp *QP) {
	st := r.rnr[qp.num]
	st.holding, st.held = false, st.held+now-st.since
	r.a.Stats.RNRRetries++
	r.eachSent(qp, st.from, func(i uint64, w *wr) {
		if qp.cancels(i) {
			w.status = StatusCancelled
			r.finish(qp, i, now)
			return
		}
		r.resend(now, qp, w, i)
	})
	r.transmit()
}

// eachSent calls f, in order, for each data request of qp from index from
// that has executed and waits for its answer, up to the first that has not
// executed yet.
func (r *requester) eachSent(qp *QP, from uint64, f func(i uint64, w *wr)) {
	for i := from; i < qp.posted; i++ {
		w := qp.slot(i)
		switch {
		case !isData(w.op) || w.skip:
		case w.awaitRemote:
			f(i, w)
		case w.tExec == 0:
			return // not executed yet: nor are the later ones
		}
	}
}

// resend queues request idx's packets again, its payload read again from
// host memory (its local buffer checked again: a buffer invalidated
// meanwhile fails the request).
func (r *requester) resend(now sim.Tick, qp *QP, w *wr, idx uint64) {
	a := r.a
	pages, off, ok := r.localCheck(qp, w, localAccess(w.op))
	if !ok {
		a.failRequest(qp, idx, StatusAccessViolation)
		r.finish(qp, idx, now)
		return
	}
	p := r.request(qp, w, idx)
	if p.kind == pktReadReq || p.length == 0 {
		r.queueBare(p)
		return
	}
	r.readPayload(now, qp, w, p, pages, off)
}
