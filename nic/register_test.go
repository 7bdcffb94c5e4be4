package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// Tests of NdkRegisterMr / NdkDeregisterMr (docs/ndk.md 2.C, 2.D, 2.E, 5.2, 5.3)
// and the firmware command path.

// normalMr creates a normal (non fast-register) MR.
func (h *harness) normalMr() *MR {
	h.t.Helper()
	st, mr := h.a.CreateMr(h.pd, false, nil, 0)
	require.Equal(h.t, StatusSuccess, st)
	return mr
}

// register registers [va, +length) as one MDL with flags and runs until the
// callback; it returns the MR and the registration latency.
func (h *harness) register(va, length uint64, flags MRFlags) (*MR, sim.Tick) {
	h.t.Helper()
	mr := h.normalMr()
	return mr, h.registerOn(mr, []MDL{{VirtualAddress: va, ByteCount: length}}, length, flags)
}

func (h *harness) registerOn(mr *MR, chain []MDL, length uint64, flags MRFlags) sim.Tick {
	h.t.Helper()
	calls := 0
	t0 := h.env.Engine.Now()
	var t1 sim.Tick
	st := h.a.RegisterMr(mr, chain, length, flags, func(ctx uint64, s Status) {
		calls++
		require.Equal(h.t, uint64(7), ctx)
		require.Equal(h.t, StatusSuccess, s)
		t1 = h.env.Engine.Now()
	}, 7)
	require.Equal(h.t, StatusPending, st)
	h.run()
	require.Equal(h.t, 1, calls)
	return t1 - t0
}

func (h *harness) deregister(mr *MR) {
	h.t.Helper()
	calls := 0
	require.Equal(h.t, StatusPending, h.a.DeregisterMr(mr, func(uint64, Status) { calls++ }, 0))
	h.run()
	require.Equal(h.t, 1, calls)
}

// Rules 1, 24: RegisterMr pends, calls back exactly once, and the token is
// valid for [VA, VA+Length) with the flags' rights afterwards, not before.
func TestRegisterMrPendsThenTokenValidForRegion(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.normalMr()
	const va, n = 0x7000_0100, 3*pg - 0x100
	calls := 0
	st := h.a.RegisterMr(mr, []MDL{{VirtualAddress: va, ByteCount: n}}, n, MRAllowRemoteRead|MRAllowLocalWrite,
		func(uint64, Status) { calls++ }, 0)
	require.Equal(t, StatusPending, st)
	tok := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.NotEqual(t, mtt.OK, mtt.Check(h.a.tpt.Keys(), tok, h.pd.handle, 0, va, 1, mtt.AccessRemoteRead))
	h.run()
	require.Equal(t, 1, calls)
	tok = mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.Equal(t, h.a.GetLocalTokenFromMr(mr), uint32(tok))
	kt := h.a.tpt.Keys()
	require.Equal(t, mtt.OK, mtt.Check(kt, tok, h.pd.handle, 0, va, n, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonOutOfBounds, mtt.Check(kt, tok, h.pd.handle, 0, va, n+1, mtt.AccessRemoteRead))
	require.Equal(t, mtt.ReasonNoRemoteWrite, mtt.Check(kt, tok, h.pd.handle, 0, va, 1, mtt.AccessRemoteWrite))
	// The translation is the MDL's pages (identity mapping).
	pages, off, r := mtt.Translate(kt, h.a.tpt.MTT(), tok, h.pd.handle, 0, va, n, mtt.AccessRemoteRead, nil)
	require.Equal(t, mtt.OK, r)
	require.Equal(t, []uint64{0x7000_0000, 0x7000_1000, 0x7000_2000}, pages)
	require.Equal(t, uint64(0x100), off)
	require.Equal(t, uint64(1), h.a.Stats.FirmwareCommands)
}

// Rule 19: an MDL chain is one virtually contiguous region; its pieces'
// physical pages land in the MTT in order.
func TestRegisterMrChainMapsEachPiecesPages(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.normalMr()
	chain := []MDL{
		{VirtualAddress: 0x10_0800, ByteCount: 0x800, PhysicalPages: []uint64{0x9000_0000}},
		{VirtualAddress: 0x10_1000, ByteCount: 2 * pg, PhysicalPages: []uint64{0x5000_0000, 0x6000_0000}},
	}
	h.registerOn(mr, chain, 0x800+2*pg-10, MRAllowLocalWrite)
	pages, off, r := mtt.Translate(h.a.tpt.Keys(), h.a.tpt.MTT(), mtt.Token(h.a.GetLocalTokenFromMr(mr)), h.pd.handle, 0,
		0x10_0800, 0x800+2*pg-10, mtt.AccessLocalWrite, nil)
	require.Equal(t, mtt.OK, r)
	require.Equal(t, []uint64{0x9000_0000, 0x5000_0000, 0x6000_0000}, pages)
	require.Equal(t, uint64(0x800), off)
}

// Rules 16, 19, 20, 5.2: inline failures of RegisterMr change nothing and
// never call back.
func TestRegisterMrInlineFailures(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	fr := h.frmr(16, true)
	mr := h.normalMr()
	one := []MDL{{VirtualAddress: 0x1000, ByteCount: pg}}
	cases := []struct {
		name  string
		mr    *MR
		chain []MDL
		len   uint64
		flags MRFlags
		want  Status
	}{
		{"rule16 fast-register MR", fr, one, pg, 0, StatusInvalidDeviceRequest},
		{"rule19 gap between MDLs", mr, []MDL{{VirtualAddress: 0x1000, ByteCount: pg}, {VirtualAddress: 0x3000, ByteCount: pg}}, 2 * pg, 0, StatusInvalidParameter},
		{"rule19 first MDL ends mid-page", mr, []MDL{{VirtualAddress: 0x1000, ByteCount: 100}, {VirtualAddress: 0x1064, ByteCount: pg}}, 200, 0, StatusInvalidParameter},
		{"rule19 empty chain", mr, nil, pg, 0, StatusInvalidParameter},
		{"rule20 length beyond chain", mr, one, pg + 1, 0, StatusInvalidParameter},
		{"rule20 length zero", mr, one, 0, 0, StatusInvalidParameter},
		{"rule20 beyond MaxRegistrationSize", mr, []MDL{{VirtualAddress: 0, ByteCount: 2 << 30}}, 2 << 30, 0, StatusInvalidParameter},
		{"5.2 remote write bit without local write", mr, one, pg, 0x4, StatusInvalidParameter},
		{"5.2 unknown bit", mr, one, pg, 0x40, StatusInvalidParameter},
	}
	calls := 0
	for _, c := range cases {
		st := h.a.RegisterMr(c.mr, c.chain, c.len, c.flags, func(uint64, Status) { calls++ }, 0)
		require.Equal(t, c.want, st, c.name)
	}
	h.run()
	require.Zero(t, calls)
	require.Equal(t, uint64(0), h.a.Stats.FirmwareCommands)
	e, _ := h.a.tpt.Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateInvalid, e.State)
}

// Rule 18: a registered MR, or one with a registration in flight, cannot
// be registered again.
func TestRegisterMrTwiceIsInvalidDeviceState(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.normalMr()
	one := []MDL{{VirtualAddress: 0x1000, ByteCount: pg}}
	require.Equal(t, StatusPending, h.a.RegisterMr(mr, one, pg, 0, func(uint64, Status) {}, 0))
	require.Equal(t, StatusInvalidDeviceState, h.a.RegisterMr(mr, one, pg, 0, func(uint64, Status) {}, 0))
	h.run()
	require.Equal(t, StatusInvalidDeviceState, h.a.RegisterMr(mr, one, pg, 0, func(uint64, Status) {}, 0))
}

// Rule 23: RDMA_READ_SINK is a valid flag, combinable with others; this
// adapter reports RDMA_READ_SINK_NOT_REQUIRED and accepts it.
func TestRegisterMrReadSinkFlagAccepted(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	require.NotZero(t, h.a.Info().AdapterFlags&AdapterRDMAReadSinkNotRequired)
	mr, _ := h.register(0x4000, pg, MRRDMAReadSink|MRAllowLocalWrite)
	require.True(t, mr.flags.ReadSink())
}

// Rules 26, 27: DeregisterMr needs a registered normal MR.
func TestDeregisterMrUnregisteredOrFastRegisterIsRefusedInline(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	fr := h.frmr(16, true)
	mr := h.normalMr()
	calls := 0
	cb := func(uint64, Status) { calls++ }
	require.Equal(t, StatusInvalidDeviceRequest, h.a.DeregisterMr(fr, cb, 0))
	require.Equal(t, StatusInvalidDeviceState, h.a.DeregisterMr(mr, cb, 0))
	require.Equal(t, StatusPending, h.a.RegisterMr(mr, []MDL{{VirtualAddress: 0x1000, ByteCount: pg}}, pg, 0, cb, 0))
	require.Equal(t, StatusInvalidDeviceState, h.a.DeregisterMr(mr, cb, 0)) // still registering
	h.run()
	require.Equal(t, 1, calls)
	h.deregister(mr)
	require.Equal(t, StatusInvalidDeviceState, h.a.DeregisterMr(mr, cb, 0)) // already deregistered
}

// Rule 29, 5.3: after DeregisterMr the tokens are dead, and a fresh
// RegisterMr over the same MR never revives them.
func TestDeregisteredTokenDeadAndReregisterNeverRevivesIt(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr, _ := h.register(0x20_0000, 2*pg, MRAllowRemoteWrite|MRAllowRemoteRead)
	old := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	kt := h.a.tpt.Keys()
	require.Equal(t, mtt.OK, mtt.Check(kt, old, h.pd.handle, 0, 0x20_0000, 8, mtt.AccessRemoteWrite))
	h.deregister(mr)
	require.Equal(t, mtt.ReasonEntryInvalid, mtt.Check(kt, old, h.pd.handle, 0, 0x20_0000, 8, mtt.AccessRemoteWrite))
	h.registerOn(mr, []MDL{{VirtualAddress: 0x20_0000, ByteCount: 2 * pg}}, 2*pg, MRAllowRemoteWrite)
	fresh := mtt.Token(h.a.GetRemoteTokenFromMr(mr))
	require.NotEqual(t, old, fresh)
	require.Equal(t, mtt.ReasonKeyMismatch, mtt.Check(kt, old, h.pd.handle, 0, 0x20_0000, 8, mtt.AccessRemoteWrite))
	require.Equal(t, mtt.OK, mtt.Check(kt, fresh, h.pd.handle, 0, 0x20_0000, 8, mtt.AccessRemoteWrite))
}

// Rule 63: closing an MR with a registration in flight pends until the
// registration's callback has run; the close callback is the last one.
func TestCloseMrDuringRegisterPendsUntilCallback(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	mr := h.normalMr()
	var order []string
	require.Equal(t, StatusPending, h.a.RegisterMr(mr, []MDL{{VirtualAddress: 0x1000, ByteCount: pg}}, pg, 0,
		func(uint64, Status) { order = append(order, "register") }, 0))
	require.Equal(t, StatusPending, h.a.CloseObject(mr, func(uint64, Status) { order = append(order, "close") }, 0))
	h.run()
	require.Equal(t, []string{"register", "close"}, order)
	e, _ := h.a.tpt.Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateFree, e.State)
}

// docs/sources.md 4/9: registration latency grows with the page count by the
// pinning cost plus the page-list read and MTT writes, and small
// registrations are dominated by the fixed firmware cost.
func TestRegisterMrLatencyGrowsWithPagesFixedCostDominatesSmall(t *testing.T) {
	sp := DefaultSpec()
	var lat []sim.Tick
	sizes := []uint64{1, 16, 256, 4096, 65536}
	for _, n := range sizes {
		h := newHarness(t, sp)
		_, d := h.register(0x1_0000_0000, n*pg, MRAllowLocalWrite)
		lat = append(lat, d)
		t.Logf("RegisterMr %6d pages (%8d KiB): %10.3f us", n, n*4, float64(d)/float64(sim.US))
	}
	fixed := sim.Tick(sp.RegisterFirmwareNS) * sim.NS
	for i := 1; i < len(lat); i++ {
		require.Greater(t, lat[i], lat[i-1])
	}
	// Small: the fixed firmware cost is most of a 1-page and a 16-page registration.
	require.Greater(t, float64(fixed)/float64(lat[0]), 0.9)
	require.Greater(t, float64(fixed)/float64(lat[1]), 0.8)
	// Large: the per-page cost is at least the pinning cost and dominates.
	pin := sim.Tick(sp.PinPSPerPage)
	perPage := (lat[4] - lat[3]) / sim.Tick(sizes[4]-sizes[3])
	require.GreaterOrEqual(t, perPage, pin)
	require.Less(t, perPage, 2*pin)
	require.Greater(t, lat[4], 10*fixed)
	t.Logf("marginal cost per page %d..%d pages: %.3f us (pin %.3f us)", sizes[3], sizes[4],
		float64(perPage)/float64(sim.US), float64(pin)/float64(sim.US))
}

// The firmware serialises commands: two registrations issued together take
// about twice the fixed cost.
func TestFirmwareRunsOneCommandAtATime(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	var ends []sim.Tick
	for i := 0; i < 2; i++ {
		mr := h.normalMr()
		require.Equal(t, StatusPending, h.a.RegisterMr(mr, []MDL{{VirtualAddress: uint64(i+1) << 20, ByteCount: pg}}, pg, 0,
			func(uint64, Status) { ends = append(ends, h.env.Engine.Now()) }, 0))
	}
	h.run()
	require.Len(t, ends, 2)
	fixed := sim.Tick(h.a.spec.RegisterFirmwareNS) * sim.NS
	require.GreaterOrEqual(t, ends[1]-ends[0], fixed)
}
