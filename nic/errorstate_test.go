package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
)

// Tests of the QP error state (docs/ndk.md §5.1, rules 8, 10), the
// receive's own checks, NdkFlush and the PD checks of work requests.

// errQP is a pair whose host-a QP has its receives on a CQ of their own
// (rcq), so initiator and receive completions can be told apart.
type errQP struct {
	*pair
	qa, qb *QP
	rcq    *CQ
}

func newErrQP(t *testing.T) *errQP {
	t.Helper()
	p := newPair(t, DefaultSpec())
	qa, qb, rcq := p.connectWithReceiveCQ(p.a)
	return &errQP{pair: p, qa: qa, qb: qb, rcq: rcq}
}

// connectWithReceiveCQ is connect (QP contexts 1 on a, 2 on b) where the
// QP on side has its receives on a CQ of their own, which it returns.
func (p *pair) connectWithReceiveCQ(side *harness) (qa, qb *QP, rcq *CQ) {
	p.t.Helper()
	st, rcq := side.a.CreateCQ(64)
	require.Equal(p.t, StatusSuccess, st)
	qp := func(h *harness, ctx uint64) *QP {
		r := h.cq
		if h == side {
			r = rcq
		}
		st, q := h.a.CreateQPWithCQs(h.pd, r, h.cq, ctx, 64, 64)
		require.Equal(p.t, StatusSuccess, st)
		return q
	}
	qa, qb = qp(p.a, 1), qp(p.b, 2)
	require.NoError(p.t, ConnectQPs(qa, qb))
	return qa, qb, rcq
}

// receives posts n receives of 64 B with contexts 100.. on host a.
func (e *errQP) receives(buf *MR, n int) {
	e.t.Helper()
	for i := range n {
		require.Equal(e.t, StatusSuccess, e.a.a.Receive(e.qa, uint64(100+i), lsge(buf, srcVA+uint64(i)*64, 64)))
	}
}

// requireCancelledReceives checks that the n receives completed
// STATUS_CANCELLED in post order on the receive CQ.
func (e *errQP) requireCancelledReceives(n int) {
	e.t.Helper()
	res := e.a.a.GetCQResults(e.rcq, 64)
	require.Len(e.t, res, n)
	for i, r := range res {
		require.Equal(e.t, Result{Status: StatusCancelled, QPContext: 1, RequestContext: uint64(100 + i), Type: OpReceive}, r)
	}
}

// §5.1, rule 10: whatever puts a QP in the error state - an error
// completion found at validate, at execute or on the peer's answer, or a
// refusal by the QP's responder - every posted receive of the QP completes
// STATUS_CANCELLED in post order, and so does every later request.
func TestInitiatorErrorCancelsPostedReceivesInPostOrder(t *testing.T) {
	causes := map[string]func(e *errQP, local *MR) (failing Status){
		"FastRegister over a valid MR": func(e *errQP, _ *MR) Status {
			mr := e.a.frmr(16, false)
			require.Equal(t, StatusSuccess, e.a.a.FastRegister(e.qa, 1, mr, pages(1), 0, pg, 0, 0))
			e.run()
			require.Equal(t, StatusSuccess, e.a.one().Status)
			require.Equal(t, StatusSuccess, e.a.a.FastRegister(e.qa, 2, mr, pages(1), 0, pg, 0, 0))
			return StatusInvalidDeviceState
		},
		"double invalidate": func(e *errQP, _ *MR) Status {
			mr := e.a.frmr(16, false)
			require.Equal(t, StatusSuccess, e.a.a.Invalidate(e.qa, 2, mr, 0))
			return StatusInvalidDeviceState
		},
		"Bind of a bound window": func(e *errQP, local *MR) Status {
			mw := e.a.mw()
			require.Equal(t, StatusSuccess, e.a.a.Bind(e.qa, 1, local, mw, srcVA, pg, OpAllowRemoteRead))
			e.run()
			require.Equal(t, StatusSuccess, e.a.one().Status)
			require.Equal(t, StatusSuccess, e.a.a.Bind(e.qa, 2, local, mw, srcVA, pg, OpAllowRemoteRead))
			return StatusInvalidDeviceState
		},
		"failed SILENT_SUCCESS request": func(e *errQP, _ *MR) Status {
			mr := e.a.frmr(16, false)
			require.Equal(t, StatusSuccess, e.a.a.Invalidate(e.qa, 2, mr, OpSilentSuccess))
			return StatusInvalidDeviceState
		},
		"Read whose sink was invalidated first": func(e *errQP, _ *MR) Status {
			sink := e.a.frmr(16, false)
			require.Equal(t, StatusSuccess, e.a.a.FastRegister(e.qa, 1, sink, pages(1), 0, pg, 0, OpAllowLocalWrite|OpSilentSuccess))
			require.Equal(t, StatusSuccess, e.a.a.Invalidate(e.qa, 1, sink, OpSilentSuccess))
			remote, _ := e.b.register(dstVA, pg, MRAllowRemoteRead)
			sge := SGE{VirtualAddress: 0, Length: 64, Token: e.a.a.GetLocalTokenFromMr(sink)}
			require.Equal(t, StatusSuccess, e.a.a.Read(e.qa, 2, sge, dstVA, e.b.a.GetRemoteTokenFromMr(remote), 0))
			return StatusAccessViolation
		},
	}
	for name, cause := range causes {
		t.Run(name, func(t *testing.T) {
			e := newErrQP(t)
			local, _ := e.a.register(srcVA, 4*pg, MRAllowLocalWrite)
			e.receives(local, 3)
			failing := cause(e, local)
			later := e.a.frmr(16, false)
			require.Equal(t, StatusSuccess, e.a.a.FastRegister(e.qa, 3, later, pages(1), 0, pg, 0, 0))
			require.Equal(t, StatusSuccess, e.a.a.Invalidate(e.qa, 4, later, 0))
			e.run()
			e.requireCancelledReceives(3)
			res := e.a.poll()
			require.Len(t, res, 3)
			require.Equal(t, uint64(2), res[0].RequestContext)
			require.Equal(t, failing, res[0].Status)
			for i, r := range res[1:] {
				require.Equal(t, uint64(3+i), r.RequestContext)
				require.Equal(t, StatusCancelled, r.Status)
			}
			ent, _ := e.a.a.TPT().Keys().Entry(later.Index())
			require.NotEqual(t, mtt.StateValid, ent.State, "a cancelled FastRegister has no effect")
			// A receive posted in the error state completes at once.
			require.Equal(t, StatusSuccess, e.a.a.Receive(e.qa, 103, lsge(local, srcVA, 64)))
			e.run()
			require.Equal(t, []Result{{Status: StatusCancelled, QPContext: 1, RequestContext: 103, Type: OpReceive}}, e.a.a.GetCQResults(e.rcq, 8))
		})
	}
}

// §5.1: an error found when a request begins executing (a Write whose local
// buffer its token does not cover) cancels the requests behind it that had
// already passed validate: they complete STATUS_CANCELLED with no effect.
func TestErrorAtExecuteCancelsLaterRequestsAlreadyPastValidate(t *testing.T) {
	e := newErrQP(t)
	local, _ := e.a.register(srcVA, pg, MRAllowLocalWrite)
	remote, _ := e.b.register(dstVA, pg, MRAllowRemoteWrite)
	fr := e.a.frmr(16, false)
	bad := lsge(local, srcVA+pg, 64) // past the end of its MR
	require.Equal(t, StatusSuccess, e.a.a.Write(e.qa, 1, bad, dstVA, e.b.a.GetRemoteTokenFromMr(remote), OpDefer))
	require.Equal(t, StatusSuccess, e.a.a.FastRegister(e.qa, 2, fr, pages(1), 0, pg, 0, 0))
	e.run()
	res := e.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusAccessViolation, res[0].Status)
	require.Equal(t, StatusCancelled, res[1].Status)
	ent, _ := e.a.a.TPT().Keys().Entry(fr.Index())
	require.NotEqual(t, mtt.StateValid, ent.State)
}

// §5.1: requests posted before the failing one complete first, with their
// own status.
func TestRequestsBeforeTheFailingOneKeepTheirStatus(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpDefer))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, OpDefer))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 3, mr, 0)) // double invalidate
	h.run()
	var got []Status
	for _, r := range h.poll() {
		got = append(got, r.Status)
	}
	require.Equal(t, []Status{StatusSuccess, StatusSuccess, StatusInvalidDeviceState}, got)
}

// §5.1: a Read posted before a request that fails at execute places its
// data and completes successfully although its data arrives after the QP
// entered the error state.
func TestReadBeforeTheFailingRequestPlacesItsData(t *testing.T) {
	e := newErrQP(t)
	local, remote := e.setup(MRAllowRemoteRead)
	tok := e.b.a.GetRemoteTokenFromMr(remote)
	require.Equal(t, StatusSuccess, e.a.a.Read(e.qa, 1, lsge(local, srcVA, 64), dstVA, tok, 0))
	bad := lsge(local, srcVA+4*pg, 64) // past the end of its MR
	require.Equal(t, StatusSuccess, e.a.a.Read(e.qa, 2, bad, dstVA, tok, 0))
	e.run()
	res := e.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusAccessViolation, res[1].Status)
	require.Equal(t, pattern(64, 100), memAt(e.a.a.Mem(), srcVA, 64))
}

// §5.1, rules 10, 25: a refusal by the responder puts the responder's QP in
// the error state: its posted receives complete STATUS_CANCELLED in post
// order.
func TestResponderErrorCancelsPostedReceivesInPostOrder(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb, rcq := p.connectWithReceiveCQ(p.b)
	local, remote := p.setup(MRAllowRemoteRead)
	for i := range 3 {
		require.Equal(t, StatusSuccess, p.b.a.Receive(qb, uint64(10+i), lsge(remote, dstVA, 64)))
	}
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 64), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	res := p.b.a.GetCQResults(rcq, 8)
	require.Len(t, res, 3)
	for i, r := range res {
		require.Equal(t, Result{Status: StatusCancelled, QPContext: 2, RequestContext: uint64(10 + i), Type: OpReceive}, r)
	}
}

// §5.1: a receive that fails its own local check - its buffer in an MR of
// another PD, or an MR without local-write rights (a fast-registered one
// included) - completes with STATUS_ACCESS_VIOLATION; only the receives
// behind it complete STATUS_CANCELLED. No byte is placed; the sender gets
// STATUS_REMOTE_RESOURCES.
func TestReceiveFailingLocalCheckCompletesWithErrorNotCancelled(t *testing.T) {
	cases := map[string]func(p *pair) SGE{
		"MR of another PD": func(p *pair) SGE {
			st, pd2 := p.b.a.CreatePD()
			require.Equal(t, StatusSuccess, st)
			other := &harness{t: p.t, env: p.env, a: p.b.a, pd: pd2, cq: p.b.cq}
			mr, _ := other.register(dstVA+8*pg, pg, MRAllowLocalWrite)
			return lsge(mr, dstVA+8*pg, 64)
		},
		"MR without local write": func(p *pair) SGE {
			mr, _ := p.b.register(dstVA+8*pg, pg, MRAllowRemoteRead)
			return lsge(mr, dstVA+8*pg, 64)
		},
		"fast-registered MR without local write": func(p *pair) SGE {
			mr := p.b.frmr(16, true)
			qp := p.b.qp(4)
			require.Equal(t, StatusSuccess, p.b.a.FastRegister(qp, 0, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
			p.run()
			require.Equal(t, StatusSuccess, p.b.one().Status)
			return SGE{VirtualAddress: 0, Length: 64, Token: p.b.a.GetLocalTokenFromMr(mr)}
		},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			p := newPair(t, DefaultSpec())
			qa, qb := p.connect()
			local, good := p.setup(MRAllowLocalWrite)
			before := memAt(p.b.a.Mem(), dstVA, 4*pg)
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10, bad(p)))
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 11, lsge(good, dstVA, 64)))
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 12, lsge(good, dstVA+64, 64)))
			require.Equal(t, StatusSuccess, p.a.a.Send(qa, 1, lsge(local, srcVA, 64), 0))
			p.run()
			require.Equal(t, []Result{
				{Status: StatusAccessViolation, QPContext: 2, RequestContext: 10, Type: OpReceive},
				{Status: StatusCancelled, QPContext: 2, RequestContext: 11, Type: OpReceive},
				{Status: StatusCancelled, QPContext: 2, RequestContext: 12, Type: OpReceive},
			}, p.b.poll())
			require.Equal(t, StatusRemoteResources, p.a.one().Status)
			require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
		})
	}
}

// §5.1 (ND IND2QueuePair Receive): a receive too small for the message
// completes STATUS_BUFFER_OVERFLOW; the receives behind it are cancelled.
func TestReceiveTooSmallCompletesBufferOverflow(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, good := p.setup(MRAllowLocalWrite)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10, lsge(good, dstVA, 16)))
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 11, lsge(good, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 1, lsge(local, srcVA, 64), 0))
	p.run()
	require.Equal(t, []Result{
		{Status: StatusBufferOverflow, QPContext: 2, RequestContext: 10, Type: OpReceive},
		{Status: StatusCancelled, QPContext: 2, RequestContext: 11, Type: OpReceive},
	}, p.b.poll())
	require.Equal(t, StatusRemoteResources, p.a.one().Status)
}

// §5.6 (as NdkBind, §5.5): NdkFastRegister with an MR and a QP of different
// PDs fails inline with STATUS_INVALID_PARAMETER; nothing is posted.
func TestFastRegisterQPAndMRInDifferentPDsFailsInline(t *testing.T) {
	h, qp := newQP(t, 8)
	st, pd2 := h.a.CreatePD()
	require.Equal(t, StatusSuccess, st)
	other := &harness{t: t, env: h.env, a: h.a, pd: pd2, cq: h.cq}
	mr := other.frmr(16, false)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	h.run()
	require.Empty(t, h.poll())
	require.Zero(t, qp.Outstanding())
	ent, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.NotEqual(t, mtt.StateValid, ent.State)
}

// Rule 8, §5.1: NdkFlush cancels every request the NIC has not started
// executing when it is called - here requests posted in the same instant,
// a lone one whose WQE is on its way by MMIO and a DEFER chain whose
// doorbell has not been rung - in post order and with no effect: the
// cancelled FastRegister and Bind leave no valid token.
func TestFlushCancelsRequestsNotYetStarted(t *testing.T) {
	for _, defer1 := range []OpFlags{0, OpDefer} {
		h, qp, fr := newFR(t, 16)
		mr, _ := h.register(mrVA, 4*pg, MRAllowRemoteWrite)
		mw := h.mw()
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, fr, pages(1), 0, pg, 0, defer1|OpAllowLocalWrite))
		require.Equal(t, StatusSuccess, h.a.Bind(qp, 2, mr, mw, mrVA, pg, OpAllowRemoteRead|OpDefer))
		require.Equal(t, StatusSuccess, h.a.Flush(qp))
		h.run()
		res := h.poll()
		require.Len(t, res, 2)
		for i, r := range res {
			require.Equal(t, Result{Status: StatusCancelled, QPContext: qp.ctx, RequestContext: uint64(1 + i), Type: []OpType{OpFastRegister, OpBind}[i]}, r)
		}
		keys := h.a.TPT().Keys()
		require.NotEqual(t, mtt.OK, mtt.Check(keys, mtt.Token(h.a.GetRemoteTokenFromMr(fr)), h.pd.handle, qp.num, 0, 8, mtt.AccessLocalWrite))
		require.NotEqual(t, mtt.OK, mtt.Check(keys, mtt.Token(h.a.GetRemoteTokenFromMw(mw)), h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteRead))
		require.Zero(t, mr.windows, "no window is bound")
	}
}

// Rule 8: a request the NIC has already executed when NdkFlush is called
// keeps its own status; the flush cancels only what follows.
func TestFlushLeavesExecutedRequestWithItsOwnStatus(t *testing.T) {
	h, qp, fr := newFR(t, 16)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, fr, pages(1), 0, pg, 0, 0))
	for { // run until the FastRegister has committed (executed), before its CQE is visible
		ent, _ := h.a.TPT().Keys().Entry(fr.Index())
		if ent.State == mtt.StateValid {
			break
		}
		require.True(t, h.env.Engine.Step())
	}
	require.Empty(t, h.poll())
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, fr, 0))
	require.Equal(t, StatusSuccess, h.a.Flush(qp))
	h.run()
	res := h.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusCancelled, res[1].Status)
	ent, _ := h.a.TPT().Keys().Entry(fr.Index())
	require.Equal(t, mtt.StateValid, ent.State, "the cancelled Invalidate had no effect")
}

// §5.5: NdkBind to a normal MR that is not registered - never registered,
// or deregistered - is STATUS_INVALID_DEVICE_STATE inline; nothing is
// posted.
func TestBindToUnregisteredMRIsInvalidDeviceState(t *testing.T) {
	h, qp := newQP(t, 8)
	never := h.normalMr()
	require.Equal(t, StatusInvalidDeviceState, h.a.Bind(qp, 1, never, h.mw(), 0, pg, OpAllowRemoteRead))
	gone, _ := h.register(mrVA, pg, MRAllowRemoteWrite)
	h.deregister(gone)
	require.Equal(t, StatusInvalidDeviceState, h.a.Bind(qp, 2, gone, h.mw(), mrVA, pg, OpAllowRemoteRead))
	h.run()
	require.Empty(t, h.poll())
	require.Zero(t, qp.Outstanding())
}

// NdkCreateQp takes a receive CQ and an initiator CQ: receive completions
// go to the one, initiator completions to the other; closing either CQ
// first pends until the QP is closed (rule 64).
func TestQPWithSeparateReceiveAndInitiatorCQs(t *testing.T) {
	e := newErrQP(t)
	local, remote := e.setup(MRAllowRemoteWrite | MRAllowLocalWrite)
	require.Equal(t, StatusSuccess, e.a.a.Receive(e.qa, 7, lsge(local, srcVA, 64)))
	require.Equal(t, StatusSuccess, e.b.a.Send(e.qb, 8, lsge(remote, dstVA, 32), 0))
	require.Equal(t, StatusSuccess, e.a.a.Write(e.qa, 9, lsge(local, srcVA, 32), dstVA, e.b.a.GetRemoteTokenFromMr(remote), 0))
	e.run()
	require.Equal(t, []Result{{Status: StatusSuccess, BytesTransferred: 32, QPContext: 1, RequestContext: 7, Type: OpReceive}}, e.a.a.GetCQResults(e.rcq, 8))
	require.Equal(t, []Result{{Status: StatusSuccess, QPContext: 1, RequestContext: 9, Type: OpWrite}}, e.a.poll())
	closed := 0
	require.Equal(t, StatusPending, e.a.a.CloseObject(e.rcq, func(uint64, Status) { closed++ }, 0))
	require.Equal(t, StatusSuccess, e.a.a.CloseObject(e.qa, nil, 0))
	require.Equal(t, 1, closed)
}

// §5.1: receives complete in post order when the QP goes to error. A
// receive a message has taken completes before the ones behind it: when the
// responder refuses a later message while an earlier Send is still being
// placed, the earlier receive completes STATUS_SUCCESS first and the rest
// are cancelled after it; the same when NdkFlush is called then; and a
// receive that fails its own check behind a receive still being placed
// completes after it.
func TestReceiveCompletionsStayInPostOrderWhenTheQPGoesToError(t *testing.T) {
	cases := map[string]struct {
		second  uint32 // length of the second receive
		refuse  func(p *pair, qa, qb *QP, local *MR)
		results []Status
	}{
		"a refused SendAndInvalidate": {64, func(p *pair, qa, _ *QP, local *MR) {
			require.Equal(t, StatusSuccess, p.a.a.SendAndInvalidate(qa, 11, lsge(local, srcVA, 0), 0xBAD, 0))
		}, []Status{StatusSuccess, StatusCancelled, StatusCancelled}},
		"a receive too small behind it": {16, func(p *pair, qa, _ *QP, local *MR) {
			require.Equal(t, StatusSuccess, p.a.a.Send(qa, 11, lsge(local, srcVA, 64), 0))
		}, []Status{StatusSuccess, StatusBufferOverflow, StatusCancelled}},
		"NdkFlush": {64, func(p *pair, _, qb *QP, _ *MR) {
			for qb.rqHead == 0 { // until the first Send has taken its receive
				require.True(t, p.env.Engine.Step())
			}
			require.Equal(t, StatusSuccess, p.b.a.Flush(qb))
		}, []Status{StatusSuccess, StatusCancelled, StatusCancelled}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := newPair(t, DefaultSpec())
			qa, qb := p.connect()
			local, remote := p.setup(MRAllowRemoteWrite)
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 1, lsge(remote, dstVA, 3*pg)))
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 2, lsge(remote, dstVA, c.second)))
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 3, lsge(remote, dstVA, 64)))
			require.Equal(t, StatusSuccess, p.a.a.Send(qa, 10, lsge(local, srcVA, 3*pg), 0))
			c.refuse(p, qa, qb, local)
			p.run()
			var got []uint64
			var st []Status
			for _, r := range p.b.poll() {
				got, st = append(got, r.RequestContext), append(st, r.Status)
			}
			require.Equal(t, []uint64{1, 2, 3}, got, "receives complete in post order")
			require.Equal(t, c.results, st)
			require.Equal(t, pattern(3*pg, 1), memAt(p.b.a.Mem(), dstVA, 3*pg), "the first Send was placed")
			// A receive posted in the error state completes after them.
			require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 4, lsge(remote, dstVA, 64)))
			p.run()
			require.Equal(t, []Result{{Status: StatusCancelled, QPContext: 2, RequestContext: 4, Type: OpReceive}}, p.b.poll())
		})
	}
}

// §5.5, §5.6 (as NdkBind and NdkFastRegister): NdkInvalidate with an MR or
// a window of another PD than the QP's fails inline with
// STATUS_INVALID_PARAMETER; nothing is posted and the token stays valid.
func TestInvalidateQPAndObjectInDifferentPDsFailsInline(t *testing.T) {
	h, qp := newQP(t, 8)
	st, pd2 := h.a.CreatePD()
	require.Equal(t, StatusSuccess, st)
	other := &harness{t: t, env: h.env, a: h.a, pd: pd2, cq: h.cq}
	st, qp2 := h.a.CreateQP(pd2, h.cq, 9, 8, 8)
	require.Equal(t, StatusSuccess, st)
	qp2.Connect()
	fr := other.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp2, 1, fr, pages(1), 0, pg, 0, 0))
	mr, _ := other.register(mrVA, 4*pg, MRAllowRemoteWrite)
	mw := other.mw()
	require.Equal(t, StatusSuccess, h.a.Bind(qp2, 2, mr, mw, mrVA, pg, OpAllowRemoteRead))
	h.run()
	require.Len(t, h.poll(), 2)

	require.Equal(t, StatusInvalidParameter, h.a.Invalidate(qp, 3, fr, 0))
	require.Equal(t, StatusInvalidParameter, h.a.InvalidateMw(qp, 4, mw, 0))
	h.run()
	require.Empty(t, h.poll())
	require.Zero(t, qp.Outstanding())
	keys := h.a.TPT().Keys()
	for _, idx := range []uint32{fr.Index(), mw.Index()} {
		ent, _ := keys.Entry(idx)
		require.Equal(t, mtt.StateValid, ent.State, "the refused invalidation changed nothing")
	}
	// The QP of their own PD invalidates them.
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp2, 5, fr, 0))
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp2, 6, mw, 0))
	h.run()
	res := h.poll()
	require.Len(t, res, 2)
	for _, r := range res {
		require.Equal(t, StatusSuccess, r.Status)
	}
}
