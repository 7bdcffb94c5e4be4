package nic

import "github.com/nicsim/nicsim/mtt"

// The QP error state (docs/ndk.md §5.1, rules 8, 10). One path puts a QP in
// it, whatever the cause: an error completion of one of its requests (found
// at validate, at execute, or on the peer's answer), a refusal by its
// responder, or NdkFlush. From that moment:
//
//   - every request of the QP that has not begun executing completes
//     STATUS_CANCELLED, in post order, with no effect. A request begins
//     executing when it reaches the commit point (the MPT-update stage, where
//     a FastRegister, Bind or Invalidate changes its key-table entry and a
//     Send, Read or Write checks its local buffer and goes on the wire), so
//     the scheduler, validate and the commit point itself all cancel;
//   - a request that had begun executing has had its effect and completes
//     with its own status: a FastRegister, Bind or Invalidate with that of
//     its key-table change, a Send or Write with its peer's answer. A Read
//     has its effect when its data is placed: one whose data arrives after
//     the error state cancels it (qp.cancels) places nothing and completes
//     STATUS_CANCELLED. Only an error found on the peer's answer or at a
//     Read's data arrival can come after later requests have begun; one
//     found at validate or at the commit point cancels all of them;
//   - every posted receive completes STATUS_CANCELLED in post order, and a
//     receive posted later completes STATUS_CANCELLED at once. Receives
//     complete in post order: one a message has taken (its bytes being
//     placed, or failed its own check) completes when the responder
//     answers that message, so the cancellations wait until every taken
//     receive has completed (takenReceiveDone).
//
// Requests posted before the failing one complete first (post order) with
// their own status.

// failRequest makes request idx of qp an error completion of status st and
// puts the QP in the error state from the next request on.
func (a *Adapter) failRequest(qp *QP, idx uint64, st Status) {
	w := qp.slot(idx)
	w.status, w.skip = st, true
	a.settleWR(w, false) // an error completion has no effect
	a.Stats.ErrorCompletions++
	a.qpToError(qp, idx+1)
}

// cancels reports whether request idx of qp, which has not begun executing,
// is cancelled by the QP's error state.
func (qp *QP) cancels(idx uint64) bool { return qp.err && idx >= qp.errFrom }

// cancel completes w STATUS_CANCELLED without effect: its QP entered the
// error state before w began executing.
func (a *Adapter) cancel(w *wr) {
	w.status, w.skip = StatusCancelled, true
	a.settleWR(w, false)
}

// settleWR ends what the provider set aside for w when it was posted (w.held),
// once the NIC has decided w's fate: took is true when w's key-table change
// took effect at its commit point, false when w ends without effect
// (cancelled, or an error completion). It runs once per request.
//
// A FastRegister that rotates the key (docs/ndk.md §5.3) and every Bind
// advance the object's visible token when they are posted (rules 43, 50):
// later posts carry it, and the hazard scoreboard checks them against the
// state the earlier request will leave (validate.go). The key-table entry
// gets the new key only at the commit point, one step from the key it
// holds (mtt.KeyTable refuses any other). So the visible key is always the
// entry's key plus the key-changing requests of the object that are posted
// and not settled: a request that took effect moves the entry one step
// and leaves the visible key where it is; one without effect takes its
// step back (§5.1: it has no effect, on the token either). Once none is
// outstanding the visible token is the key the entry holds, whatever order
// the requests settled in, so a cancelled or failed FastRegister or Bind
// never leaves a token that no later request or access can match.
//
// A Bind also holds its MR from being deregistered or closed (rule 28,
// §5.5) from its post on: counted in MR.windows, it becomes the window's
// binding when it takes effect and is released when it has none.
func (a *Adapter) settleWR(w *wr, took bool) {
	if !w.held {
		return
	}
	w.held = false
	switch w.op {
	case OpBind:
		if took {
			w.mw.bound = w.mr // the reservation becomes the binding
			return
		}
		w.mw.tok = mtt.MakeToken(w.mw.tok.Index(), w.mw.tok.Key()-1)
		a.mrWindowGone(w.mr)
	case OpFastRegister:
		if !took {
			w.mr.tok = mtt.MakeToken(w.mr.tok.Index(), w.mr.tok.Key()-1)
		}
	}
}

// qpToError puts qp in the error state for its requests from post index
// from on (0: every request not begun, as for NdkFlush or a refusal by the
// responder): the scheduler flushes those not fetched yet, validate and the
// commit point cancel those in the pipeline, and its posted receives
// complete STATUS_CANCELLED now.
func (a *Adapter) qpToError(qp *QP, from uint64) {
	if !qp.err || from < qp.errFrom {
		qp.errFrom = from
	}
	if !qp.err {
		qp.err = true
		a.sched.activate(qp)
		a.hazards.wakeValidates() // a request held by READ_FENCE is cancelled now
	}
	a.flushReceives(qp)
}

// flushReceives completes every posted receive of qp with STATUS_CANCELLED,
// in post order, once the receives taken by a message have completed.
func (a *Adapter) flushReceives(qp *QP) {
	if qp.rqTaken > 0 {
		return // takenReceiveDone flushes after the last one
	}
	for qp.rqHead != qp.rqTail {
		rw := qp.rq[qp.rqHead%uint64(len(qp.rq))]
		qp.rqHead++
		a.writeRecvCQE(qp, rw, StatusCancelled, 0, OpReceive, 0)
	}
}

// takenReceiveDone records that a receive taken by a message has completed;
// in the error state, the receives behind the last one are cancelled now.
func (a *Adapter) takenReceiveDone(qp *QP) {
	qp.rqTaken--
	if qp.err {
		a.flushReceives(qp)
	}
}
