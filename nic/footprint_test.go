package nic

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// TableBytes bounds what New allocates, and is not far above it, with
// large tables and deep stages on several engines.
func TestTableBytesCoversWhatNewAllocates(t *testing.T) {
	s := DefaultSpec()
	s.TPT.KeyTableEntriesMax, s.TPT.MTTEntriesMax = 1<<17, 1<<20
	s.ExecEngines = 8
	s.Parse.LatencyCycles, s.Parse.ItemsPerCycle = 4096, 16
	s.Validation.LatencyCycles, s.Validation.ItemsPerCycle = 2048, 16
	s.Completion.QueueDepth = 4096
	require.NoError(t, s.Validate())
	env := sim.NewEnv(1)
	link, err := pcie.New("PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(s.ClockPeriodPS)})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := New("NIC", s, env, link, link.DMA())
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	grew := after.HeapAlloc - before.HeapAlloc
	est := TableBytes(s)
	t.Logf("estimate %.1f MiB, heap grew %.1f MiB", float64(est)/(1<<20), float64(grew)/(1<<20))
	require.LessOrEqual(t, grew, est)
	require.Greater(t, grew, est/2)
	runtime.KeepAlive(a)
}

// A QP's and a CQ's records are what QPBytes and CQBytes say.
func TestObjectBytesCoverQueues(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	o := Objects()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, qp := h.a.CreateQP(h.pd, h.cq, 1, 1024, 1024)
	require.Equal(t, StatusSuccess, st)
	st, cq := h.a.CreateCQ(16384)
	require.Equal(t, StatusSuccess, st)
	runtime.ReadMemStats(&after)
	grew, est := after.HeapAlloc-before.HeapAlloc, o.QPBytes(1024, 1024)+o.CQBytes(16384)
	t.Logf("estimate %d B, heap grew %d B", est, grew)
	require.LessOrEqual(t, grew, est+4096)
	require.Greater(t, grew, est/2)
	runtime.KeepAlive(qp)
	runtime.KeepAlive(cq)
}
