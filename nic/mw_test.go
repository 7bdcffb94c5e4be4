package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
)

// Tests of memory windows (docs/ndk.md 2.H, 2.I for windows, 5.3, 5.5).

func (h *harness) mw() *MW {
	h.t.Helper()
	st, mw := h.a.CreateMw(h.pd, nil, 0)
	require.Equal(h.t, StatusSuccess, st)
	return mw
}

// bindOK posts a bind, runs, and requires one successful Bind CQE.
func (h *harness) bindOK(qp *QP, mr *MR, mw *MW, va, length uint64, flags OpFlags) mtt.Token {
	h.t.Helper()
	require.Equal(h.t, StatusSuccess, h.a.Bind(qp, 9, mr, mw, va, length, flags))
	tok := mtt.Token(h.a.GetRemoteTokenFromMw(mw))
	h.run()
	res := h.poll()
	require.Len(h.t, res, 1)
	require.Equal(h.t, StatusSuccess, res[0].Status)
	require.Equal(h.t, OpBind, res[0].Type)
	return tok
}

const mrVA = 0x40_0000

// newWindow is a harness with a connected QP of 16 WRs, a normal MR of
// bytes at mrVA registered with remote write, and an unbound window.
func newWindow(t testing.TB, bytes uint64) (*harness, *QP, *MR, *MW) {
	t.Helper()
	h, qp := newQP(t, 16)
	mr, _ := h.register(mrVA, bytes, MRAllowRemoteWrite)
	return h, qp, mr, h.mw()
}

// Rule 46: a new window is unbound: its token grants nothing.
func TestCreateMwIsUnbound(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mw := h.mw()
	r := mtt.Check(h.a.tpt.Keys(), mtt.Token(h.a.GetRemoteTokenFromMw(mw)), h.pd.handle, 0, 0, 1, mtt.AccessRemoteRead)
	require.Equal(t, mtt.ReasonEntryInvalid, r)
}

// Rule 46, 1: with the prepared-entry pool empty CreateMw pends and calls
// back once with the window.
func TestCreateMwPendingCallsBackOnce(t *testing.T) {
	sp := DefaultSpec()
	sp.MRPoolEntries = 0
	h := newHarness(t, sp)
	var got []*MW
	st, mw := h.a.CreateMw(h.pd, func(_ uint64, s Status, m *MW) {
		require.Equal(t, StatusSuccess, s)
		got = append(got, m)
	}, 0)
	require.Equal(t, StatusPending, st)
	require.Nil(t, mw)
	h.run()
	require.Len(t, got, 1)
	require.NotNil(t, got[0])
}

// Rules 47, 50, 5.3: Bind is a QP work request completing with Type Bind;
// the window's new token is defined when the call returns and grants
// exactly the window's range and rights, through the bound QP only.
func TestBindNewTokenGrantsWindowRangeRightsAndQPOnly(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	qp, other := h.qp(16), h.qp(16)
	mr, _ := h.register(mrVA, 4*pg, MRAllowRemoteWrite)
	mw := h.mw()
	before := mtt.Token(h.a.GetRemoteTokenFromMw(mw))
	tok := h.bindOK(qp, mr, mw, mrVA+pg, 2*pg, OpAllowRemoteRead)
	require.NotEqual(t, before, tok)
	require.Equal(t, before.Index(), tok.Index())
	kt := h.a.tpt.Keys()
	pd := h.pd.handle
	require.Equal(t, mtt.OK, mtt.Check(kt, tok, pd, qp.num, mrVA+pg, 2*pg, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonOutOfBounds, mtt.Check(kt, tok, pd, qp.num, mrVA, 8, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonNoRemoteWrite, mtt.Check(kt, tok, pd, qp.num, mrVA+pg, 8, mtt.AccessRemoteWrite))
	require.Equal(t, mtt.ReasonWindowQPMismatch, mtt.Check(kt, tok, pd, other.num, mrVA+pg, 8, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonKeyMismatch, mtt.Check(kt, before, pd, qp.num, mrVA+pg, 8, mtt.AccessRemoteRead))
}

// Rule 48, 5.5: a window must lie wholly inside its MR (and be non-empty,
// at most MaxWindowSize): INVALID_PARAMETER inline, no CQE.
func TestBindWindowOutsideMRIsInvalid(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	tok := h.a.GetRemoteTokenFromMw(mw)
	for _, c := range []struct {
		name    string
		va, len uint64
	}{
		{"starts below", mrVA - 1, 8},
		{"ends beyond", mrVA + 4*pg - 8, 9},
		{"starts at end", mrVA + 4*pg, 1},
		{"empty", mrVA, 0},
		{"wraps", mrVA + 8, ^uint64(0)},
	} {
		require.Equal(t, StatusInvalidParameter, h.a.Bind(qp, 0, mr, mw, c.va, c.len, OpAllowRemoteRead), c.name)
	}
	h.run()
	require.Empty(t, h.poll())
	require.Equal(t, tok, h.a.GetRemoteTokenFromMw(mw)) // nothing changed
	h.bindOK(qp, mr, mw, mrVA, 4*pg, OpAllowRemoteRead) // the whole MR is fine
}

// Rule 49, 3.3: a remote-write window needs the MR's LOCAL_WRITE
// (ACCESS_VIOLATION inline); a remote-read window does not need the MR's
// REMOTE_READ.
func TestBindRemoteWriteWindowNeedsMRLocalWrite(t *testing.T) {
	h, qp := newQP(t, 16)
	ro, _ := h.register(mrVA, pg, 0) // local read only
	mw := h.mw()
	require.Equal(t, StatusAccessViolation, h.a.Bind(qp, 0, ro, mw, mrVA, pg, OpAllowRemoteWrite))
	// 5.2: ALLOW_LOCAL_WRITE (0x10) alone is not a Bind flag: the flags are
	// refused before the MR is looked at.
	require.Equal(t, StatusInvalidParameter, h.a.Bind(qp, 0, ro, mw, mrVA, pg, OpAllowLocalWrite))
	h.run()
	require.Empty(t, h.poll())
	lw, _ := h.register(2*mrVA, pg, MRAllowLocalWrite) // no REMOTE_READ
	tok := h.bindOK(qp, lw, mw, 2*mrVA, pg, OpAllowRemoteRead|OpAllowRemoteWrite)
	require.Equal(t, mtt.OK, mtt.Check(h.a.tpt.Keys(), tok, h.pd.handle, qp.num, 2*mrVA, pg, mtt.AccessRemoteWrite))
}

// 5.5: binding to a fast-register MR is the wrong MR kind.
func TestBindToFastRegisterMrIsInvalidDeviceRequest(t *testing.T) {
	h, qp := newQP(t, 16)
	fr := h.frmr(16, true)
	require.Equal(t, StatusInvalidDeviceRequest, h.a.Bind(qp, 0, fr, h.mw(), 0, pg, OpAllowRemoteRead))
}

// Rule 52, 5.5: binding a window that is still bound is an error
// completion STATUS_INVALID_DEVICE_STATE; the QP goes to error and later
// requests are cancelled; the first binding stays.
func TestBindBoundWindowIsErrorCompletionInvalidDeviceState(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	tok := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteRead)
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 1, mr, mw, mrVA+pg, pg, OpAllowRemoteRead))
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp, 2, mw, 0))
	h.run()
	res := h.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusInvalidDeviceState, res[0].Status)
	require.Equal(t, OpBind, res[0].Type)
	require.Equal(t, StatusCancelled, res[1].Status)
	require.Equal(t, mtt.OK, mtt.Check(h.a.tpt.Keys(), tok, h.pd.handle, qp.num, mrVA, pg, mtt.AccessRemoteRead))
}

// 5.3, rules 50, 56: every bind gives a new key; after invalidate and
// rebind the token of the earlier binding is refused.
func TestStaleWindowTokenAfterRebindRefused(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	old := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteWrite)
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp, 3, mw, 0))
	h.run()
	res := h.one()
	require.Equal(t, OpInvalidate, res.Type)
	require.Equal(t, StatusSuccess, res.Status)
	kt := h.a.tpt.Keys()
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(kt, old, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
	fresh := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteWrite)
	require.NotEqual(t, old, fresh)
	require.Equal(t, mtt.ReasonKeyMismatch, mtt.Check(kt, old, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
	require.Equal(t, mtt.OK, mtt.Check(kt, fresh, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
}

// Rule 57 choice: invalidating a window that is not bound is an error
// completion.
func TestInvalidateUnboundWindowIsErrorCompletion(t *testing.T) {
	h, qp := newQP(t, 16)
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp, 0, h.mw(), 0))
	h.run()
	require.Equal(t, StatusInvalidDeviceState, h.one().Status)
}

// Rule 28, 5.5: DeregisterMr of an MR with a bound window is DEVICE_BUSY
// inline and changes nothing; after the window is invalidated it works.
func TestDeregisterWithBoundWindowIsDeviceBusy(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	mrTok := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	wtok := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteWrite)
	calls := 0
	require.Equal(t, StatusDeviceBusy, h.a.DeregisterMr(mr, func(uint64, Status) { calls++ }, 0))
	h.run()
	require.Zero(t, calls)
	kt := h.a.tpt.Keys()
	require.Equal(t, mtt.OK, mtt.Check(kt, mrTok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessLocalWrite))
	require.Equal(t, mtt.OK, mtt.Check(kt, wtok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteWrite))
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp, 0, mw, 0))
	h.run()
	require.Len(t, h.poll(), 1)
	h.deregister(mr)
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(kt, mrTok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessLocalWrite))
}

// Rule 4, 5.2: Bind's inline checks on connection and flags.
func TestBindInlineChecks(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	st, qp := h.a.CreateQP(h.pd, h.cq, 0, 16, 0)
	require.Equal(t, StatusSuccess, st)
	mr, _ := h.register(mrVA, pg, MRAllowRemoteWrite)
	mw := h.mw()
	require.Equal(t, StatusConnectionInvalid, h.a.Bind(qp, 0, mr, mw, mrVA, pg, OpAllowRemoteRead))
	qp.Connect()
	require.Equal(t, StatusInvalidParameter, h.a.Bind(qp, 0, mr, mw, mrVA, pg, 0x20))     // 5.2
	require.Equal(t, StatusInvalidParameter, h.a.Bind(qp, 0, mr, mw, mrVA, pg, OpInline)) // not a Bind flag
	unreg := h.normalMr()
	require.Equal(t, StatusInvalidDeviceState, h.a.Bind(qp, 0, unreg, mw, mrVA, pg, OpAllowRemoteRead))
}

// Rule 46: CreateMw fails inline with INSUFFICIENT_RESOURCES when the key
// table is full.
func TestCreateMwFullKeyTableIsInsufficientResources(t *testing.T) {
	sp := DefaultSpec()
	sp.TPT.KeyTableEntriesMax = 1
	h := newHarness(t, sp)
	h.mw()
	st, mw := h.a.CreateMw(h.pd, nil, 0)
	require.Equal(t, StatusInsufficientResources, st)
	require.Nil(t, mw)
}

// Rules 3, 5, 47: a successful Bind with SILENT_SUCCESS produces no CQE;
// the window is bound all the same.
func TestBindSilentSuccessHasNoCQE(t *testing.T) {
	h, qp, mr, mw := newWindow(t, pg)
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 0, mr, mw, mrVA, pg, OpAllowRemoteRead|OpSilentSuccess))
	tok := mtt.Token(h.a.GetRemoteTokenFromMw(mw))
	h.run()
	require.Empty(t, h.poll())
	require.Equal(t, mtt.OK, mtt.Check(h.a.tpt.Keys(), tok, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteRead))
}

// 5.1, rules 50, 52: a Bind that fails or is cancelled has no effect, on
// the window's token either, whatever order the requests settle in. A
// failing rebind (5.5) and the Invalidate and Bind posted behind it on the
// same QP (cancelled) each advanced the token when posted; once they have
// completed the token is the first binding's again, so the window can be
// invalidated through another QP, its token dies, and the MR, no longer
// held by any of the binds, can be deregistered (rule 28).
func TestFailedAndCancelledBindsGiveTheWindowsTokenBack(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	bound := h.bindOK(qp, mr, mw, mrVA, pg, OpAllowRemoteRead)
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 1, mr, mw, mrVA+pg, pg, OpAllowRemoteRead))
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp, 2, mw, 0))
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 3, mr, mw, mrVA+pg, pg, OpAllowRemoteRead))
	require.NotEqual(t, bound, mtt.Token(h.a.GetRemoteTokenFromMw(mw)), "each post defines a new token (rule 50)")
	require.Equal(t, StatusDeviceBusy, h.a.DeregisterMr(mr, func(uint64, Status) {}, 0))
	h.run()
	res := h.poll()
	require.Len(t, res, 3)
	require.Equal(t, []Status{StatusInvalidDeviceState, StatusCancelled, StatusCancelled}, []Status{res[0].Status, res[1].Status, res[2].Status})
	require.Equal(t, bound, mtt.Token(h.a.GetRemoteTokenFromMw(mw)))
	require.Equal(t, 1, mr.windows, "only the first binding holds the MR")

	qp2 := h.qp(16)
	require.Equal(t, StatusSuccess, h.a.InvalidateMw(qp2, 4, mw, 0))
	h.run()
	require.Equal(t, StatusSuccess, h.one().Status)
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(h.a.tpt.Keys(), bound, h.pd.handle, qp.num, mrVA, 8, mtt.AccessRemoteRead))
	h.deregister(mr)
}

// 5.1, 5.3, rule 45: with rotate_fast_register_key, a FastRegister over a
// valid MR fails and the Invalidate and FastRegister behind it are
// cancelled; all three give their keys back, so the MR's token is the
// registration's in force and NdkInvalidate on another QP revokes it
// (rule 56).
func TestFailedAndCancelledFastRegistersGiveTheMRsTokenBack(t *testing.T) {
	sp := DefaultSpec()
	sp.RotateFastRegisterKey = true
	h := newHarness(t, sp)
	qp := h.qp(16)
	mr := h.frmr(4, true)
	before := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	valid := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.NotEqual(t, before, valid)
	h.run()
	require.Equal(t, StatusSuccess, h.one().Status)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 3, mr, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 4, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	h.run()
	res := h.poll()
	require.Len(t, res, 3)
	require.Equal(t, []Status{StatusInvalidDeviceState, StatusCancelled, StatusCancelled}, []Status{res[0].Status, res[1].Status, res[2].Status})
	require.Equal(t, valid, mtt.Token(h.a.GetRemoteTokenFromMr(mr)))

	qp2 := h.qp(16)
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp2, 5, mr, 0))
	h.run()
	require.Equal(t, StatusSuccess, h.one().Status)
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(h.a.tpt.Keys(), valid, h.pd.handle, qp.num, 0, 8, mtt.AccessRemoteRead))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp2, 6, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	h.run()
	require.Equal(t, StatusSuccess, h.one().Status, "the MR fast-registers again (rule 56)")
}

// Rules 28, 53, 64: a Bind posted and not executed holds its MR as a bound
// window does: NdkDeregisterMr is STATUS_DEVICE_BUSY and closing the MR
// pends; when the bind is cancelled the MR is released and the close
// completes.
func TestBindPostedHoldsItsMRUntilItSettles(t *testing.T) {
	h, qp, mr, mw := newWindow(t, 4*pg)
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 1, mr, mw, mrVA, pg, OpAllowRemoteRead))
	require.Equal(t, StatusDeviceBusy, h.a.DeregisterMr(mr, func(uint64, Status) {}, 0))
	closed := 0
	require.Equal(t, StatusPending, h.a.CloseObject(mr, func(uint64, Status) { closed++ }, 0))
	require.Equal(t, StatusSuccess, h.a.Flush(qp))
	h.run()
	require.Equal(t, StatusCancelled, h.one().Status)
	require.Equal(t, 1, closed)
	require.Zero(t, mr.windows)
}
