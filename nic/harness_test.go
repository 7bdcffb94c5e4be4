package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// harness is one adapter on a real PCIe link with a PD, a CQ and helpers.
type harness struct {
	t    testing.TB
	env  *sim.Env
	link *pcie.Link
	a    *Adapter
	pd   *PD
	cq   *CQ
	reg  *sim.Registry
}

func newHarness(t testing.TB, spec Spec) *harness {
	t.Helper()
	return newHarnessOn(t, spec, pcie.DefaultSpec())
}

// newHarnessOn is newHarness on a link of link's spec.
func newHarnessOn(t testing.TB, spec Spec, ls pcie.Spec) *harness {
	t.Helper()
	env := sim.NewEnv(1)
	link, err := pcie.New("PCIe", ls, env, sim.ClockDomain{Period: sim.Tick(spec.ClockPeriodPS)})
	require.NoError(t, err)
	a, err := New("NIC", spec, env, link, link.DMA())
	require.NoError(t, err)
	reg := sim.NewRegistry()
	require.NoError(t, a.Register(reg))
	require.NoError(t, link.Register(reg))
	st, pd := a.CreatePD()
	require.Equal(t, StatusSuccess, st)
	st, cq := a.CreateCQ(4096)
	require.Equal(t, StatusSuccess, st)
	return &harness{t: t, env: env, link: link, a: a, pd: pd, cq: cq, reg: reg}
}

// newQP is a harness with a connected QP of depth WRs.
func newQP(t testing.TB, depth uint32) (*harness, *QP) {
	t.Helper()
	h := newHarness(t, DefaultSpec())
	return h, h.qp(depth)
}

// newFR is newQP with a fast-register MR initialised for 16 pages without
// remote access.
func newFR(t testing.TB, depth uint32) (*harness, *QP, *MR) {
	t.Helper()
	h, qp := newQP(t, depth)
	return h, qp, h.frmr(16, false)
}

// qp returns a connected QP of the given depth on the harness CQ.
func (h *harness) qp(depth uint32) *QP {
	h.t.Helper()
	st, qp := h.a.CreateQP(h.pd, h.cq, uint64(1000+len(h.a.qps)), depth, 0)
	require.Equal(h.t, StatusSuccess, st)
	qp.Connect()
	return qp
}

// frmr returns a fast-register MR initialised for pages pages, running the
// engine until a pending initialisation has completed.
func (h *harness) frmr(pages uint32, remote bool) *MR {
	h.t.Helper()
	var mr *MR
	st, mr := h.a.CreateMr(h.pd, true, func(_ uint64, s Status, m *MR) {
		require.Equal(h.t, StatusSuccess, s)
		mr = m
	}, 0)
	if st == StatusPending {
		h.run()
	} else {
		require.Equal(h.t, StatusSuccess, st)
	}
	require.NotNil(h.t, mr)
	called := 0
	st = h.a.InitializeFastRegisterMr(mr, pages, remote, func(ctx uint64, s Status) {
		called++
		require.Equal(h.t, StatusSuccess, s)
	}, 0)
	require.Equal(h.t, StatusPending, st)
	h.run()
	require.Equal(h.t, 1, called)
	return mr
}

func (h *harness) run() { h.env.Engine.Run() }

// pages returns n page-aligned, non-contiguous adapter logical addresses.
func pages(n int) []uint64 {
	p := make([]uint64, n)
	for i := range p {
		p[i] = 0x8000_0000 + uint64(i)*3*PageSizeBytes
	}
	return p
}

// poll returns every visible result of the harness CQ.
func (h *harness) poll() []Result { return h.a.GetCQResults(h.cq, 1<<20) }

// succeededInOrder polls n results: every one a success, with request
// contexts 1 to n in order.
func (h *harness) succeededInOrder(n int) {
	h.t.Helper()
	res := h.poll()
	require.Len(h.t, res, n)
	for i, r := range res {
		require.Equal(h.t, StatusSuccess, r.Status, "request %d", i+1)
		require.Equal(h.t, uint64(i+1), r.RequestContext, "in order")
	}
}

// one returns the one visible result of the harness CQ.
func (h *harness) one() Result {
	h.t.Helper()
	res := h.poll()
	require.Len(h.t, res, 1)
	return res[0]
}
