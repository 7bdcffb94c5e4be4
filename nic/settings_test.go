package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// Tests of the adapter settings NDK leaves to the provider (docs/ndk.md,
// "Provider settings").

// Rules 1, 24 (2.A: inline and pending are both legal): with
// register_mr_inline, NdkRegisterMr called where the caller may wait
// returns STATUS_SUCCESS after its firmware command - the clock has run on
// meanwhile - calls nothing back, and the token is valid at once; called
// from an event it pends and calls back once.
func TestRegisterMrInlineCompletesWithoutCallbackAndTokenValid(t *testing.T) {
	sp := DefaultSpec()
	sp.RegisterMrInline = true
	h := newHarness(t, sp)
	mr := h.normalMr()
	calls := 0
	cb := func(uint64, Status) { calls++ }
	t0 := h.env.Engine.Now()
	require.Equal(t, StatusSuccess, h.a.RegisterMr(mr, []MDL{{VirtualAddress: mrVA, ByteCount: pg}}, pg, MRAllowRemoteWrite, cb, 0))
	require.GreaterOrEqual(t, uint64(h.env.Engine.Now()-t0), sp.RegisterFirmwareNS*1000, "the call waited for the firmware")
	require.Equal(t, mtt.OK, mtt.Check(h.a.TPT().Keys(), mtt.Token(h.a.GetRemoteTokenFromMr(mr)), h.pd.handle, 0, mrVA, pg, mtt.AccessRemoteWrite))
	h.run()
	require.Zero(t, calls, "no callback after an inline completion")

	inEvent := h.normalMr()
	var st Status
	h.env.Engine.After(0, sim.PrioDefault, sim.HandlerFunc(func(sim.Tick, uint64) {
		st = h.a.RegisterMr(inEvent, []MDL{{VirtualAddress: 2 * mrVA, ByteCount: pg}}, pg, 0, cb, 0)
	}), 0)
	h.run()
	require.Equal(t, StatusPending, st, "a provider may not wait inside an event")
	require.Equal(t, 1, calls)
}

// 1.3, rule 48: MaxWindowSize is a setting of its own, reported in
// NDK_ADAPTER_INFO and enforced by NdkBind, not derived from FRMRPageCount.
func TestMaxWindowSizeIsItsOwnSetting(t *testing.T) {
	sp := DefaultSpec()
	sp.MaxWindowSizeBytes = 2 * pg
	h := newHarness(t, sp)
	require.Equal(t, uint64(2*pg), h.a.Info().MaxWindowSizeBytes)
	require.Equal(t, sp.FRMRPageCount, h.a.Info().FRMRPageCount)
	qp := h.qp(8)
	mr, _ := h.register(mrVA, 4*pg, MRAllowRemoteWrite)
	require.Equal(t, StatusInvalidParameter, h.a.Bind(qp, 1, mr, h.mw(), mrVA, 3*pg, OpAllowRemoteRead))
	require.Equal(t, StatusSuccess, h.a.Bind(qp, 2, mr, h.mw(), mrVA, 2*pg, OpAllowRemoteRead))
	sp.MaxWindowSizeBytes = 0
	require.ErrorContains(t, sp.Validate(), "max_window_size_bytes = 0")
}

// Rules 17, 46: the adapter limits MR and MW objects separately; beyond
// its limit NdkCreateMr or NdkCreateMw fails with
// STATUS_INSUFFICIENT_RESOURCES inline, or, when the call had to pend,
// in its callback; closing an object makes room.
func TestMRAndMWLimitsAreSeparate(t *testing.T) {
	sp := DefaultSpec()
	sp.MRsMax, sp.MWsMax = 2, 1
	h := newHarness(t, sp)
	var mrs []*MR
	for range 2 {
		st, mr := h.a.CreateMr(h.pd, true, nil, 0)
		require.Equal(t, StatusSuccess, st)
		mrs = append(mrs, mr)
	}
	st, _ := h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(t, StatusInsufficientResources, st)
	st, mw := h.a.CreateMw(h.pd, nil, 0)
	require.Equal(t, StatusSuccess, st, "windows have a limit of their own")
	st, _ = h.a.CreateMw(h.pd, nil, 0)
	require.Equal(t, StatusInsufficientResources, st)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mrs[0], nil, 0))
	st, _ = h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(t, StatusSuccess, st)
	require.Equal(t, StatusSuccess, h.a.CloseObject(mw, nil, 0))
	st, _ = h.a.CreateMw(h.pd, nil, 0)
	require.Equal(t, StatusSuccess, st)

	sp.MRPoolEntries, sp.MRsMax = 0, 1
	h = newHarness(t, sp)
	var got []Status
	cb := func(_ uint64, s Status, _ *MR) { got = append(got, s) }
	st1, _ := h.a.CreateMr(h.pd, true, cb, 0)
	st2, _ := h.a.CreateMr(h.pd, true, cb, 0)
	require.Equal(t, []Status{StatusPending, StatusPending}, []Status{st1, st2})
	h.run()
	require.Equal(t, []Status{StatusSuccess, StatusInsufficientResources}, got)
}
