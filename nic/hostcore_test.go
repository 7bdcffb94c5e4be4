package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestQPsOnOneCorePostInTurn: QP n posts on core n mod HostCores, and a
// core does one thing at a time. With two cores, QPs 0 and 2 share core 0:
// posted at the same instant, QP 2's WQE is built only after QP 0's WQE
// and its write-combined store (two 64 B lines for a FastRegister with its
// page inline), so QP 2's WQE reaches the NIC at least that much later
// than QP 0's, and after QP 1's, whose core is free.
func TestQPsOnOneCorePostInTurn(t *testing.T) {
	spec := DefaultSpec()
	spec.HostCores = 2
	h := newHarness(t, spec)
	qps := []*QP{h.qp(4), h.qp(4), h.qp(4)}
	mrs := []*MR{h.frmr(1, false), h.frmr(1, false), h.frmr(1, false)}
	for i, qp := range qps {
		require.Equal(t, uint32(i)%spec.HostCores, h.a.cores.core(qp))
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, uint64(i), mrs[i], pages(1), 0, PageSizeBytes, 0, 0))
	}
	h.run()
	require.Len(t, h.poll(), 3)
	at := func(i int) sim.Tick { return qps[i].slot(0).tDoorbell }
	require.GreaterOrEqual(t, at(2)-at(0), sim.Tick(spec.PostWQEBuildPS+2*spec.PostWCLinePS))
	require.Greater(t, at(2), at(1))
}
