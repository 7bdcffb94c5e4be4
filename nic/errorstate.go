package nic

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
	a.Stats.ErrorCompletions++
	a.qpToError(qp, idx+1)
}

// cancels reports whether request idx of qp, which has not begun executing,
// is cancelled by the QP's error state.
func (qp *QP) cancels(idx uint64) bool { return qp.err && idx >= qp.errFrom }

// cancel completes w STATUS_CANCELLED without effect: its QP entered the
// error state before w began executing.
func cancel(w *wr) { w.status, w.skip = StatusCancelled, true }

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
