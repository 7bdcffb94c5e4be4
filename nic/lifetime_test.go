package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
)

// Object lifetime (docs/ndk.md 2.K, rules 53, 61-65).

// Rule 64: closing a PD before its registered MR pends; the PD's
// CloseCompletion runs once, after the MR is closed.
func TestClosePdBeforeMrPendsUntilMrClosed(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr, _ := h.register(mrVA, pg, MRAllowLocalWrite)
	calls := 0
	require.Equal(t, StatusPending, h.a.CloseObject(h.pd, func(uint64, Status) { calls++ }, 0))
	h.run()
	require.Zero(t, calls)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mr, nil, 0))
	require.Equal(t, 1, calls)
}

// Rule 64: a PD with an open window (even unbound) closes after it.
func TestClosePdBeforeMwPendsUntilMwClosed(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mw := h.mw()
	calls := 0
	require.Equal(t, StatusPending, h.a.CloseObject(h.pd, func(uint64, Status) { calls++ }, 0))
	require.Zero(t, calls)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mw, nil, 0))
	require.Equal(t, 1, calls)
	e, _ := h.a.tpt.Keys().Entry(mw.Index())
	require.Equal(t, mtt.StateFree, e.State)
}

// Rules 53, 64: the MR is the antecedent of a window bound to it: closing
// the MR first pends, the MR (and its token) stays until the window is
// closed, then the MR's CloseCompletion runs.
func TestCloseMrBeforeBoundMwPendsUntilMwClosed(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 2*pg)
	mrTok := mtt.Token(h.a.GetLocalTokenFromMr(mr))
	wtok := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteWrite)
	var order []string
	require.Equal(t, StatusPending, h.a.CloseObject(mr, func(uint64, Status) { order = append(order, "mr") }, 0))
	require.Equal(t, StatusPending, h.a.CloseObject(h.pd, func(uint64, Status) { order = append(order, "pd") }, 0))
	h.run()
	require.Empty(t, order)
	kt := h.a.tpt.Keys()
	require.Equal(t, mtt.OK, mtt.Check(kt, wtok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
	require.Equal(t, StatusSuccess, h.a.CloseObject(mw, nil, 0))
	require.Equal(t, []string{"mr"}, order)
	require.NotEqual(t, mtt.OK, mtt.Check(kt, wtok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
	require.NotEqual(t, mtt.OK, mtt.Check(kt, mrTok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessLocalWrite))
	require.Equal(t, StatusSuccess, h.a.CloseObject(qp, nil, 0)) // no work outstanding: inline
	require.Equal(t, []string{"mr", "pd"}, order)
}

// Rule 63: CloseCompletion is the MR's last callback: closing during a
// DeregisterMr completes after the deregistration's callback.
func TestCloseMrDuringDeregisterCompletesAfterItsCallback(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr, _ := h.register(mrVA, pg, 0)
	var order []string
	require.Equal(t, StatusPending, h.a.DeregisterMr(mr, func(uint64, Status) { order = append(order, "dereg") }, 0))
	require.Equal(t, StatusPending, h.a.CloseObject(mr, func(uint64, Status) { order = append(order, "close") }, 0))
	h.run()
	require.Equal(t, []string{"dereg", "close"}, order)
}

// Rule 64 across hosts: closing the initiator's PD before its QP pends
// until the QP's close, which flushes its work (rule 63).
func TestClosePdBeforeQpPendsUntilQpClosed(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	var order []string
	require.Equal(t, StatusPending, p.a.a.CloseObject(p.a.pd, func(uint64, Status) { order = append(order, "pd") }, 0))
	p.run()
	require.Empty(t, order)
	require.Equal(t, StatusSuccess, p.a.a.CloseObject(qa, nil, 0))
	require.Equal(t, []string{"pd"}, order)
}

// Rule 61: calls need not wait for earlier callbacks: while a RegisterMr
// is pending, other calls on the PD (CreateMw, Bind, another RegisterMr)
// proceed, and each pending call gets exactly its own callback.
func TestCallsDoNotWaitForEarlierCallbacks(t *testing.T) {
	h, qp := newQP(t, 16)
	mr2, _ := h.register(2*mrVA, pg, MRAllowRemoteWrite)
	mr1 := h.normalMr()
	var got []uint64
	cb := func(ctx uint64, s Status) {
		require.Equal(t, StatusSuccess, s)
		got = append(got, ctx)
	}
	require.Equal(t, StatusPending, h.a.RegisterMr(mr1, []MDL{{VirtualAddress: mrVA, ByteCount: pg}}, pg, 0, cb, 1))
	mw := h.mw()
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 0, mr2, mw, 2*mrVA, pg, OpAllowRemoteRead))
	mr3 := h.normalMr()
	require.Equal(t, StatusPending, h.a.RegisterMr(mr3, []MDL{{VirtualAddress: 3 * mrVA, ByteCount: pg}}, pg, 0, cb, 3))
	h.run()
	require.Equal(t, []uint64{1, 3}, got)
	res := h.one()
	require.Equal(t, StatusSuccess, res.Status)
	// The Bind's CQE came long before the registrations' firmware finished.
	require.Equal(t, OpBind, res.Type)
}
