package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// Tests named after the rules of docs/ndk.md they check.

const pg = PageSizeBytes

// --- 2.A Return vs completion ---

// Rule 1, 2: inline SUCCESS returns the object and never calls back.
func TestCreateMrInlineSuccessReturnsObjectWithoutCallback(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	calls := 0
	st, mr := h.a.CreateMr(h.pd, true, func(uint64, Status, *MR) { calls++ }, 1)
	require.Equal(t, StatusSuccess, st)
	require.NotNil(t, mr)
	h.run()
	require.Zero(t, calls)
}

// Rule 1, 2: PENDING returns no object and calls back exactly once with it.
func TestCreateMrPendingCallsBackExactlyOnceWithObject(t *testing.T) {
	sp := DefaultSpec()
	sp.MRPoolEntries = 0 // every CreateMr needs a firmware command
	h := newHarness(t, sp)
	var got []*MR
	var stats []Status
	st, mr := h.a.CreateMr(h.pd, true, func(ctx uint64, s Status, m *MR) {
		require.Equal(t, uint64(42), ctx)
		stats = append(stats, s)
		got = append(got, m)
	}, 42)
	require.Equal(t, StatusPending, st)
	require.Nil(t, mr)
	h.run()
	require.Equal(t, []Status{StatusSuccess}, stats)
	require.NotNil(t, got[0])
	// The firmware's work, plus the command's MMIO write and the MSI-X.
	now := uint64(h.env.Engine.Now())
	require.GreaterOrEqual(t, now, sp.FirmwareCommandNS*1000)
	require.Less(t, now, sp.FirmwareCommandNS*1000+1_000_000)
}

// The firmware is a resource, not a delay: pending CreateMr commands go
// through its queue one at a time, so n of them take n firmware times.
func TestCreateMrFirmwareCommandsQueueOneAtATime(t *testing.T) {
	sp := DefaultSpec()
	sp.MRPoolEntries = 0
	h := newHarness(t, sp)
	var done []sim.Tick
	for range 4 {
		st, _ := h.a.CreateMr(h.pd, true, func(uint64, Status, *MR) { done = append(done, h.env.Engine.Now()) }, 0)
		require.Equal(t, StatusPending, st)
	}
	h.run()
	require.Len(t, done, 4)
	for i := 1; i < 4; i++ {
		gap := uint64(done[i] - done[i-1])
		require.GreaterOrEqual(t, gap, sp.FirmwareCommandNS*990, "command %d", i) // MSI-X timing varies by a few ps
	}
}

// Rule 1, 17: INSUFFICIENT_RESOURCES can fail inline (key table full).
func TestCreateMrFullKeyTableIsInsufficientResourcesInline(t *testing.T) {
	sp := DefaultSpec()
	sp.TPT.KeyTableEntriesMax = 2
	h := newHarness(t, sp)
	for i := 0; i < 2; i++ {
		st, _ := h.a.CreateMr(h.pd, true, nil, 0)
		require.Equal(t, StatusSuccess, st)
	}
	st, mr := h.a.CreateMr(h.pd, true, nil, 0)
	require.Equal(t, StatusInsufficientResources, st)
	require.Nil(t, mr)
}

// Rule 1, 33: InitializeFastRegisterMr pends when it must write the MPT
// entry and completes inline when repeated with the same arguments.
func TestInitializeFastRegisterMrPendingThenInlineWhenRepeated(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.frmr(16, false) // PENDING + one callback (checked in frmr)
	calls := 0
	cb := func(uint64, Status) { calls++ }
	require.Equal(t, StatusSuccess, h.a.InitializeFastRegisterMr(mr, 16, false, cb, 0))
	h.run()
	require.Zero(t, calls)
	require.Equal(t, StatusPending, h.a.InitializeFastRegisterMr(mr, 32, true, cb, 0))
	h.run()
	require.Equal(t, 1, calls)
}

// Rule 3: a posted request produces exactly one CQE; an inline failure
// changes nothing and produces none.
func TestInlineFailureProducesNoCQEAndChangesNothing(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	tok := h.a.GetRemoteTokenFromMr(mr)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(17), 0, 17*pg, 0, 0))
	h.run()
	require.Empty(t, h.poll())
	require.Equal(t, tok, h.a.GetRemoteTokenFromMr(mr))
	require.Zero(t, qp.Outstanding())
	require.Zero(t, h.a.Stats.Ops[kindFastRegister].Posted)
}

// Rule 4: QP not connected -> STATUS_CONNECTION_INVALID inline.
func TestUnconnectedQPReturnsConnectionInvalid(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	st, qp := h.a.CreateQP(h.pd, h.cq, 1, 8, 0)
	require.Equal(t, StatusSuccess, st)
	mr := h.frmr(16, false)
	require.Equal(t, StatusConnectionInvalid, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusConnectionInvalid, h.a.Invalidate(qp, 2, mr, 0))
	h.run()
	require.Empty(t, h.poll())
}

// Rule 5: a successful SILENT_SUCCESS request produces no CQE.
func TestSilentSuccessProducesNoCQE(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpSilentSuccess))
	h.run()
	require.Empty(t, h.poll())
	require.Equal(t, uint64(1), h.a.Stats.Silent)
	e, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateValid, e.State)
}

// Rule 5, 5.1: a failing SILENT_SUCCESS request does produce a CQE.
func TestSilentFailureProducesErrorCQE(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 5, mr, OpSilentSuccess)) // MR not valid
	h.run()
	require.Equal(t, []Result{{Status: StatusInvalidDeviceState, QPContext: qp.ctx, RequestContext: 5, Type: OpInvalidate}}, h.poll())
}

// Rule 5, 5.7: a successful silent request holds its slot until a later
// signalled completion is taken by the consumer.
func TestSilentSuccessHoldsSlotUntilLaterSignalledCompletion(t *testing.T) {
	h, qp, mr := newFR(t, 2)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpSilentSuccess))
	h.run()
	require.Empty(t, h.poll())
	require.Equal(t, 1, qp.Outstanding())
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	require.Equal(t, StatusNoMoreEntries, h.a.Invalidate(qp, 3, mr, 0))
	h.run()
	require.Len(t, h.poll(), 1)
	require.Zero(t, qp.Outstanding())
}

// Rule 6: READ_FENCE waits for earlier reads of the QP; with none it runs.
func TestReadFenceWaitsForEarlierReads(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	qp.readsOut = 1 // an earlier RDMA Read in flight
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpReadFence))
	h.run()
	require.Empty(t, h.poll())
	require.NotZero(t, h.a.Stats.ReadFenceStalls)
	qp.readsOut = 0
	h.a.hazards.wakeValidates()
	h.run()
	require.Equal(t, []Result{{Status: StatusSuccess, QPContext: qp.ctx, RequestContext: 1, Type: OpFastRegister}}, h.poll())
}

// Rule 8: NdkFlush cancels pending requests with STATUS_CANCELLED.
func TestFlushCancelsPendingWithStatusCancelled(t *testing.T) {
	h, qp := newQP(t, 64)
	mrs := []*MR{h.frmr(16, false), h.frmr(16, false), h.frmr(16, false)}
	for i, mr := range mrs {
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, uint64(i), mr, pages(1), 0, pg, 0, OpDefer))
	}
	require.Equal(t, StatusSuccess, h.a.Flush(qp))
	h.run()
	res := h.poll()
	require.Len(t, res, 3)
	for i, r := range res {
		require.Equal(t, uint64(i), r.RequestContext)
		require.Equal(t, StatusCancelled, r.Status)
	}
	// Later posts are cancelled too (5.1).
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 9, mrs[0], 0))
	h.run()
	require.Equal(t, []Result{{Status: StatusCancelled, QPContext: qp.ctx, RequestContext: 9, Type: OpInvalidate}}, h.poll())
}

// Rule 9: depths beyond NDK_ADAPTER_INFO are STATUS_INVALID_PARAMETER.
func TestCreateQPDepthBeyondAdapterInfoIsInvalidParameter(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	info := h.a.Info()
	st, _ := h.a.CreateQP(h.pd, h.cq, 0, info.MaxInitiatorQueueDepth+1, 0)
	require.Equal(t, StatusInvalidParameter, st)
	st, _ = h.a.CreateQP(h.pd, h.cq, 0, 1, info.MaxReceiveQueueDepth+1)
	require.Equal(t, StatusInvalidParameter, st)
}

// Rule 9, 5.7: posting to a full initiator queue is STATUS_NO_MORE_ENTRIES.
func TestQueueFullReturnsNoMoreEntries(t *testing.T) {
	h, qp, mr := newFR(t, 2)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	require.Equal(t, StatusNoMoreEntries, h.a.Invalidate(qp, 3, mr, 0))
	h.run()
	require.Equal(t, StatusNoMoreEntries, h.a.Invalidate(qp, 3, mr, 0)) // CQEs not taken yet
	require.Len(t, h.poll(), 2)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 4, mr, pages(1), 0, pg, 0, 0))
}

// Rule 10, 5.1, 5.6, 45: FastRegister over a valid MR is an error
// completion STATUS_INVALID_DEVICE_STATE; the QP goes to error and every
// later request completes STATUS_CANCELLED in post order.
func TestFastRegisterOverValidMRIsErrorCompletionAndCancelsLater(t *testing.T) {
	h, qp, mr := newFR(t, 64)
	other := h.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, mr, pages(2), 0, 2*pg, 0, OpSilentSuccess)) // over valid
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 3, other, pages(1), 0, pg, 0, OpSilentSuccess))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 4, mr, 0))
	h.run()
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 5, other, 0)) // after the error
	h.run()
	want := []Result{
		{Status: StatusSuccess, RequestContext: 1, Type: OpFastRegister},
		{Status: StatusInvalidDeviceState, RequestContext: 2, Type: OpFastRegister},
		{Status: StatusCancelled, RequestContext: 3, Type: OpFastRegister},
		{Status: StatusCancelled, RequestContext: 4, Type: OpInvalidate},
		{Status: StatusCancelled, RequestContext: 5, Type: OpInvalidate},
	}
	for i := range want {
		want[i].QPContext = qp.ctx
	}
	require.Equal(t, want, h.poll())
	// Nothing after the error took effect: mr keeps its first registration,
	// other was never registered.
	e, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateValid, e.State)
	require.Equal(t, uint64(pg), e.Length)
	e, _ = h.a.TPT().Keys().Entry(other.Index())
	require.Equal(t, mtt.StateInvalid, e.State)
}

// --- 2.B DEFER ---

// Rules 11, 12, 5.8: a deferred request reaches the NIC when a later
// request without DEFER is posted; one doorbell for the chain; every
// request still completes.
func TestDeferChainRingsOneDoorbellAndEveryRequestCompletes(t *testing.T) {
	sp := DefaultSpec()
	h := newHarness(t, sp)
	qp := h.qp(64)
	var mrs []*MR
	for i := 0; i < 4; i++ {
		mrs = append(mrs, h.frmr(16, false))
	}
	for i, mr := range mrs {
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, uint64(i), mr, pages(1), 0, pg, 0, OpDefer))
	}
	h.run()
	require.Empty(t, h.poll()) // nothing indicated yet
	require.Zero(t, h.a.Stats.Doorbells+h.a.Stats.MMIOWQEs)
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 10, mrs[0], 0))
	h.run()
	require.Len(t, h.poll(), 5)
	require.Equal(t, uint64(1), h.a.Stats.Doorbells)
	require.Zero(t, h.a.Stats.MMIOWQEs)
	require.Equal(t, uint64(1), h.a.Stats.WQEFetches)
}

// Rules 13, 14 (the documentation's example): FR(DEFER) succeeds, a second
// FR(DEFER) fails inline -> the first is indicated and completes, the
// second gets no CQE.
func TestDeferredRequestsIndicatedBeforeInlineFailure(t *testing.T) {
	h, qp, mr := newFR(t, 64)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpDefer))
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 2, mr, pages(1), 1, pg, 0, OpDefer)) // FBO != VA mod page
	h.run()
	require.Equal(t, []Result{{Status: StatusSuccess, QPContext: qp.ctx, RequestContext: 1, Type: OpFastRegister}}, h.poll())
}

// Rule 15, 14: DeferChainMax rings the doorbell for a long chain.
func TestDeferChainMaxRingsDoorbell(t *testing.T) {
	sp := DefaultSpec()
	sp.DeferChainMax = 2
	h := newHarness(t, sp)
	qp := h.qp(64)
	a, b := h.frmr(16, false), h.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, a, pages(1), 0, pg, 0, OpDefer))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, b, pages(1), 0, pg, 0, OpDefer))
	h.run()
	require.Len(t, h.poll(), 2)
	require.Equal(t, uint64(1), h.a.Stats.Doorbells)
}

// --- 2.F NdkInitializeFastRegisterMr ---

// Rule 30, 5.6: only a fast-register MR; wrong kind is INVALID_DEVICE_REQUEST.
func TestInitializeFastRegisterMrOnNormalMRIsInvalidDeviceRequest(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	st, mr := h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(t, StatusSuccess, st)
	require.Equal(t, StatusInvalidDeviceRequest, h.a.InitializeFastRegisterMr(mr, 16, false, func(uint64, Status) {}, 0))
}

// Rule 31: page counts up to FRMRPageCount (>= 16) work; above is
// STATUS_IMPLEMENTATION_LIMIT.
func TestInitializeFastRegisterMrAboveFRMRPageCountIsImplementationLimit(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	require.GreaterOrEqual(t, h.a.Info().FRMRPageCount, uint32(FRMRPageCountMin))
	h.frmr(16, false)
	h.frmr(h.a.Info().FRMRPageCount, false)
	_, mr := h.a.CreateMr(h.pd, true, nil, 0)
	require.Equal(t, StatusImplementationLimit, h.a.InitializeFastRegisterMr(mr, h.a.Info().FRMRPageCount+1, false, func(uint64, Status) {}, 0))
}

// Rule 31, 17: no contiguous MTT range is STATUS_INSUFFICIENT_RESOURCES inline.
func TestInitializeFastRegisterMrWithoutMTTSpaceIsInsufficientResources(t *testing.T) {
	sp := DefaultSpec()
	sp.TPT.MTTEntriesMax = 24
	h := newHarness(t, sp)
	h.frmr(16, false)
	_, mr := h.a.CreateMr(h.pd, true, nil, 0)
	require.Equal(t, StatusInsufficientResources, h.a.InitializeFastRegisterMr(mr, 16, false, func(uint64, Status) {}, 0))
}

// Rule 32, 40: remote rights on an MR initialised without RemoteAccess are
// STATUS_ACCESS_VIOLATION inline, no CQE.
func TestRemoteRightsNeedRemoteAccessInit(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusAccessViolation, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	require.Equal(t, StatusAccessViolation, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteWrite))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowLocalWrite))
	h.run()
	require.Len(t, h.poll(), 1)
	remote := h.frmr(16, true)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, remote, pages(1), 0, pg, 0, OpAllowRemoteRead|OpAllowRemoteWrite))
	h.run()
	require.Equal(t, StatusSuccess, h.poll()[0].Status)
}

// Rule 34: FastRegister may be posted as soon as InitializeFastRegisterMr
// returns, before its callback.
func TestFastRegisterPostableWhenInitializeReturns(t *testing.T) {
	h, qp := newQP(t, 8)
	_, mr := h.a.CreateMr(h.pd, true, nil, 0)
	require.Equal(t, StatusPending, h.a.InitializeFastRegisterMr(mr, 16, false, func(uint64, Status) {}, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	h.run()
	require.Equal(t, StatusSuccess, h.poll()[0].Status)
}

// --- 2.G NdkFastRegister ---

// Rule 35, 5.6: before NdkInitializeFastRegisterMr -> INVALID_DEVICE_STATE inline.
func TestFastRegisterBeforeInitializeIsInvalidDeviceState(t *testing.T) {
	h, qp := newQP(t, 8)
	_, mr := h.a.CreateMr(h.pd, true, nil, 0)
	require.Equal(t, StatusInvalidDeviceState, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
}

// Rule 35, 5.6: more pages than initialised -> INVALID_PARAMETER inline.
func TestFastRegisterPageCountAboveInitializedIsInvalidParameter(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(17), 0, 17*pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(16), 0, 16*pg, 0, 0))
}

// Rule 16, 5.6: FastRegister on a normal MR is the wrong MR kind.
func TestFastRegisterOnNormalMRIsInvalidDeviceRequest(t *testing.T) {
	h, qp := newQP(t, 8)
	_, mr := h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(t, StatusInvalidDeviceRequest, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
}

// Rule 36: every page address is PAGE_SIZE-aligned.
func TestFastRegisterUnalignedPageIsInvalidParameter(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	p := pages(2)
	p[1] += 512
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, p, 0, 2*pg, 0, 0))
}

// Rule 37: 0 <= FBO < PAGE_SIZE.
func TestFBOMustBeBelowPageSize(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(2), pg, pg, pg+pg, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(2), pg-1, pg+1, 2*pg-1, 0))
}

// Rule 38: Length <= AdapterPageCount*PAGE_SIZE - FBO (and not zero).
func TestLengthMustFitPagesMinusFBO(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(2), 100, 2*pg-99, 100, 0))
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(2), 100, 0, 100, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(2), 100, 2*pg-100, 100, 0))
	h.run()
	e, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, uint64(2*pg-100), e.Length)
	require.Equal(t, uint64(100), e.FBO)
}

// Rule 39: BaseVirtualAddress mod PAGE_SIZE == FBO; 0 only with FBO 0.
func TestBaseVirtualAddressModPageMustEqualFBO(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(1), 8, 64, 0, 0))
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(1), 8, 64, 5*pg, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 8, 64, 5*pg+8, 0))
	h.run()
	e, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, uint64(5*pg+8), e.BaseVA)
}

// Rule 41: ALLOW_LOCAL_WRITE grants local write; REMOTE_WRITE (0x30)
// contains it; local read is implicit.
func TestFastRegisterRightsReachTheKeyTable(t *testing.T) {
	h, qp := newQP(t, 8)
	for _, c := range []struct {
		f    OpFlags
		want mtt.Rights
	}{
		{0, 0},
		{OpAllowLocalWrite, mtt.RightLocalWrite},
		{OpAllowRemoteRead, mtt.RightRemoteRead},
		{OpAllowRemoteWrite, mtt.RightLocalWrite | mtt.RightRemoteWrite},
	} {
		mr := h.frmr(16, true)
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, c.f))
		h.run()
		h.poll()
		e, _ := h.a.TPT().Keys().Entry(mr.Index())
		require.Equal(t, c.want, e.Rights, "flags %v", c.f)
	}
}

// Rule 43, 5.3 (default): the token is available when the call returns and,
// with rotate_fast_register_key off, stays the same across registrations.
func TestRemoteTokenAvailableWhenCallReturnsAndStableByDefault(t *testing.T) {
	h, qp := newQP(t, 8)
	mr := h.frmr(16, true)
	tok := h.a.GetRemoteTokenFromMr(mr)
	require.Equal(t, tok, h.a.GetLocalTokenFromMr(mr))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	require.Equal(t, tok, h.a.GetRemoteTokenFromMr(mr))
	h.run()
	require.Equal(t, mtt.OK, mtt.Check(h.a.TPT().Keys(), mtt.Token(tok), h.pd.Handle(), qp.Num(), 0, pg, mtt.AccessRemoteRead))
}

// Rule 43, 5.3 (rotate_fast_register_key on): each FastRegister post gives
// a new 8-bit key; the old token is dead once the request executes.
func TestRotateFastRegisterKeyGivesNewKeyPerPost(t *testing.T) {
	sp := DefaultSpec()
	sp.RotateFastRegisterKey = true
	h := newHarness(t, sp)
	qp := h.qp(8)
	mr := h.frmr(16, true)
	old := h.a.GetRemoteTokenFromMr(mr)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteRead))
	tok := h.a.GetRemoteTokenFromMr(mr)
	require.NotEqual(t, old, tok)
	require.Equal(t, old>>8, tok>>8)
	h.run()
	keys := h.a.TPT().Keys()
	require.Equal(t, mtt.OK, mtt.Check(keys, mtt.Token(tok), h.pd.Handle(), qp.Num(), 0, pg, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonKeyMismatch, mtt.Check(keys, mtt.Token(old), h.pd.Handle(), qp.Num(), 0, pg, mtt.AccessRemoteRead))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	h.run()
	require.Len(t, h.poll(), 2)
}

// 5.2: a remote-write bit without local write, and unknown bits, are
// STATUS_INVALID_PARAMETER inline.
func TestFlagRulesAreInvalidParameterInline(t *testing.T) {
	h, qp := newQP(t, 8)
	mr := h.frmr(16, true)
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0x20))
	require.Equal(t, StatusInvalidParameter, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpInline))
	require.Equal(t, StatusInvalidParameter, h.a.Invalidate(qp, 1, mr, OpAllowRemoteRead))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpRDMAReadSink|OpReadFence))
}

// --- 2.I NdkInvalidate (local) ---

// Rule 54: invalidating an NdkRegisterMr MR is STATUS_INVALID_PARAMETER inline.
func TestInvalidateNormalMRIsInvalidParameter(t *testing.T) {
	h, qp := newQP(t, 8)
	_, mr := h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(t, StatusInvalidParameter, h.a.Invalidate(qp, 1, mr, 0))
	h.run()
	require.Empty(t, h.poll())
}

// Rules 55, 56: the CQE is typed Invalidate; afterwards the old token
// fails and the MR may be fast-registered again.
func TestInvalidateKillsTokenAndAllowsFastRegisterAgain(t *testing.T) {
	h, qp := newQP(t, 8)
	mr := h.frmr(16, true)
	tok := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpAllowRemoteWrite))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	h.run()
	res := h.poll()
	require.Equal(t, OpInvalidate, res[1].Type)
	require.Equal(t, StatusSuccess, res[1].Status)
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(h.a.TPT().Keys(), tok, h.pd.Handle(), qp.Num(), 0, 8, mtt.AccessRemoteWrite))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 3, mr, pages(2), 0, 2*pg, 0, OpAllowRemoteWrite))
	h.run()
	require.Equal(t, StatusSuccess, h.poll()[0].Status)
	require.Equal(t, mtt.OK, mtt.Check(h.a.TPT().Keys(), tok, h.pd.Handle(), qp.Num(), pg, 8, mtt.AccessRemoteWrite))
}

// Rule 57 [CHOICE]: invalidating an MR that is no longer valid (a double
// invalidate) is an error completion; the QP goes to error.
func TestDoubleInvalidateIsErrorCompletion(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 3, mr, 0))
	h.run()
	res := h.poll()
	require.Len(t, res, 3)
	require.Equal(t, StatusSuccess, res[1].Status)
	require.Equal(t, StatusInvalidDeviceState, res[2].Status)
	require.Equal(t, OpInvalidate, res[2].Type)
}

// Requests on one MR from two QPs on two engines see each other in post
// order at the NIC (hazard interlock): FR then INV, never INV first.
func TestHazardInterlockOrdersRequestsOnOneMR(t *testing.T) {
	sp := DefaultSpec()
	sp.ExecEngines = 2
	h := newHarness(t, sp)
	q0, q1 := h.qp(8), h.qp(8)
	require.NotEqual(t, q0.engine, q1.engine)
	mr := h.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(q0, 1, mr, pages(16), 0, 16*pg, 0, 0)) // DMA page list: slow
	h.env.Engine.RunUntil(h.env.Engine.Now() + 300*1000)                                    // FR past validate, in page-list fetch
	require.Equal(t, StatusSuccess, h.a.Invalidate(q1, 2, mr, 0))
	h.run()
	res := h.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusSuccess, res[1].Status)
	require.NotZero(t, h.a.Stats.HazardStalls)
}

// --- 2.K object lifetime ---

// Rule 64: closing an antecedent first pends until its successors close.
func TestCloseAntecedentPendsUntilSuccessorsClose(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.frmr(16, false)
	calls := 0
	require.Equal(t, StatusPending, h.a.CloseObject(h.pd, func(uint64, Status) { calls++ }, 0))
	require.Zero(t, calls)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mr, nil, 0))
	require.Equal(t, 1, calls)
}

// Rule 63: closing a QP with work outstanding flushes it and pends.
func TestCloseQPWithOutstandingWorkPendsAndFlushes(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpDefer))
	calls := 0
	require.Equal(t, StatusPending, h.a.CloseObject(qp, func(uint64, Status) { calls++ }, 0))
	h.run()
	require.Equal(t, 1, calls)
	require.Equal(t, StatusCancelled, h.poll()[0].Status)
}

// Interrupts: an armed CQ raises one MSI-X and the notification runs once.
func TestArmedCQNotifiesOnceAfterMSIX(t *testing.T) {
	h, qp := newQP(t, 8)
	a, b := h.frmr(16, false), h.frmr(16, false)
	calls := 0
	require.Equal(t, StatusSuccess, h.a.ArmCQ(h.cq, func() { calls++ }))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, a, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, b, pages(1), 0, pg, 0, 0))
	h.run()
	require.Equal(t, 1, calls)
	require.Equal(t, uint64(1), h.a.Stats.Interrupts)
}

// Interrupt moderation: with ModerationCQEs 4 and a timer, 2 CQEs
// interrupt when the timer expires.
func TestInterruptModerationTimer(t *testing.T) {
	sp := DefaultSpec()
	sp.ModerationCQEs, sp.ModerationTimeNS = 4, 10_000
	h := newHarness(t, sp)
	qp := h.qp(8)
	a, b := h.frmr(16, false), h.frmr(16, false)
	var at []uint64
	require.Equal(t, StatusSuccess, h.a.ArmCQ(h.cq, func() { at = append(at, uint64(h.env.Engine.Now())) }))
	t0 := uint64(h.env.Engine.Now())
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, a, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 2, b, pages(1), 0, pg, 0, 0))
	h.run()
	require.Len(t, at, 1)
	require.Greater(t, at[0]-t0, uint64(10_000_000))
}

// Rule 61: closing an MR with a FastRegister in flight is a consumer error;
// the request completes in error instead of crashing the model.
func TestCloseMRWithRequestInFlightIsErrorCompletion(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(16), 0, 16*pg, 0, 0)) // DMA page list
	h.env.Engine.RunUntil(h.env.Engine.Now() + 300*1000)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mr, nil, 0))
	h.run()
	require.Equal(t, StatusInvalidDeviceState, h.poll()[0].Status)
}

// Rule 61, 5.1: a FastRegister whose MR is closed, or whose QP is flushed,
// while its page list is on its way writes no MTT entry: the closed MR's
// range is free (and could be another MR's), so writing it would change
// another registration's translation. An MR registered before it keeps
// translating to its own pages.
func TestFastRegisterCancelledOrClosedInFlightWritesNoOtherMRsTranslation(t *testing.T) {
	for _, how := range []string{"close", "flush"} {
		h := newHarness(t, DefaultSpec())
		qp := h.qp(8)
		keep, _ := h.register(0x7000_0000, 16*pg, MRAllowLocalWrite)
		before := translate(t, h, keep, 0x7000_0000+5*pg)
		mr := h.frmr(16, false)
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(16), 0, 16*pg, 0, 0)) // DMA page list
		h.env.Engine.RunUntil(h.env.Engine.Now() + 300*1000)
		if how == "close" {
			require.Equal(t, StatusSuccess, h.a.CloseObject(mr, nil, 0))
		} else {
			require.Equal(t, StatusSuccess, h.a.Flush(qp))
		}
		h.run()
		require.NotEqual(t, StatusSuccess, h.poll()[0].Status, how)
		require.Equal(t, before, translate(t, h, keep, 0x7000_0000+5*pg), "%s: the registered MR's translation", how)
	}
}

// translate is the host page the local token of mr maps va to.
func translate(t *testing.T, h *harness, mr *MR, va uint64) uint64 {
	t.Helper()
	e, ok := h.a.TPT().Keys().Entry(mr.Index())
	require.True(t, ok)
	pages, _, r := mtt.Translate(h.a.TPT().Keys(), h.a.TPT().MTT(), mtt.Token(h.a.GetLocalTokenFromMr(mr)), e.PD, 0, va, 1, mtt.AccessLocalRead, nil)
	require.Equal(t, mtt.OK, r)
	return pages[0]
}

// Rule 45, 5.1: a FastRegister checked behind an Invalidate of another QP
// that is then cancelled (its QP flushed before it took effect) finds the
// MR still valid: it completes STATUS_INVALID_DEVICE_STATE and writes no
// page of its list over the live registration, which keeps translating to
// its own pages.
func TestFastRegisterBehindACancelledInvalidateKeepsTheLiveTranslation(t *testing.T) {
	h, qa, mr := newFR(t, 8)
	qb := h.qp(8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qa, 1, mr, pages(16), 0, 16*pg, 0, 0))
	h.run()
	require.Equal(t, StatusSuccess, h.poll()[0].Status)
	before := translate(t, h, mr, 5*pg)
	moved := make([]uint64, 16)
	for i := range moved {
		moved[i] = 0x9000_0000 + uint64(i)*PageSizeBytes
	}
	require.Equal(t, StatusSuccess, h.a.Invalidate(qa, 2, mr, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qb, 3, mr, moved, 0, 16*pg, 0, 0))
	hz := &h.a.hazards.entries[mr.Index()]
	for hz.n < 2 && h.env.Engine.Step() { // both past validate, neither committed
	}
	require.Equal(t, uint16(2), hz.n)
	require.Equal(t, StatusSuccess, h.a.Flush(qa))
	h.run()
	res := h.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusCancelled, res[0].Status, "the Invalidate")
	require.Equal(t, StatusInvalidDeviceState, res[1].Status, "the FastRegister finds the MR valid")
	require.Equal(t, before, translate(t, h, mr, 5*pg))
}

// A FastRegister behind an Invalidate of the same MR in its engine's
// pipeline writes its page list only once the Invalidate has committed:
// until then the MR's MTT range holds the pages of the registration the
// Invalidate ends, and an access checked against it translates to them.
// FastRegister, Invalidate, FastRegister of one MR with one-page inline
// lists, posted together: the second list reached the MTT write before the
// first registration even took effect, which then translated to it.
func TestFastRegisterWaitsForTheInvalidateAheadBeforeWritingItsPages(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	first, second := pages(1), []uint64{0x9000_0000}
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, first, 0, pg, 0, OpDefer))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, OpDefer))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 3, mr, second, 0, pg, 0, 0))
	valid := 0
	for wasValid := false; h.env.Engine.Step(); {
		e, _ := h.a.TPT().Keys().Entry(mr.Index())
		if isValid := e.State == mtt.StateValid; isValid != wasValid {
			wasValid = isValid
			if isValid {
				valid++
				want := [...]uint64{first[0], second[0]}[min(valid, 2)-1]
				require.Equal(t, want, translate(t, h, mr, 0), "registration %d translates to its own page", valid)
			}
		}
	}
	require.Equal(t, 2, valid)
	for _, r := range h.poll() {
		require.Equal(t, StatusSuccess, r.Status)
	}
}
