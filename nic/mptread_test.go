package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestValidateReadsTheMPTEntryThroughTheCache: a FastRegister's validate
// reads its MR's key-table entry through the MPT cache. The first request
// after InitializeFastRegisterMr misses (one ICM read over PCIe, docs/sources.md
// 5: the TPT read that blocks the send queue); the Invalidate and the next
// FastRegister of the same MR hit, because the NIC writes its own MPT
// updates through the cache (mtt cache_write_policy "update").
func TestValidateReadsTheMPTEntryThroughTheCache(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	tpt := &h.a.TPT().Stats.MPT
	missesBefore := tpt.Misses

	post := func(ctx uint64) {
		require.Equal(t, StatusSuccess, h.a.FastRegister(qp, ctx, mr, pages(1), 0, PageSizeBytes, 0, 0))
		h.run()
		require.Equal(t, StatusSuccess, h.a.Invalidate(qp, ctx+1, mr, 0))
		h.run()
	}
	post(1)
	require.Equal(t, uint64(1), tpt.Misses-missesBefore, "the first request of the MR misses once")
	cold := sim.Tick(h.a.Stats.Ops[kindFastRegister].ToCQEPS.Max())
	post(3)
	require.Equal(t, uint64(1), tpt.Misses-missesBefore, "later requests of the MR hit")
	require.Equal(t, uint64(4), h.a.Stats.MPTReads)
	warm := sim.Tick(h.a.Stats.Ops[kindFastRegister].ToCQEPS.Min())
	rtt := pcieReadRoundTrip(t, 32)
	t.Logf("FastRegister post->CQE: cold MPT %v, warm %v; 32 B read round trip %v", cold, warm, rtt)
	require.InDelta(t, float64(rtt), float64(cold-warm), 0.15*float64(rtt), "a cold MPT entry costs one ICM read")
	require.Len(t, h.poll(), 4)
}

// TestSendSideMPTMissesLimitFastRegisterThroughput: when the MRs in use
// outgrow the MPT cache, every FastRegister/Invalidate pays a dependent ICM
// read (an extra DMA read, and a wait in validate), and throughput falls.
// Misses of different requests overlap within validate's in-flight slots and
// across engines, so the loss is the extra read's DMA cost, not a full round
// trip per request.
func TestSendSideMPTMissesLimitFastRegisterThroughput(t *testing.T) {
	small := DefaultSpec()
	small.TPT.MPTCache.EntriesMax = 16
	small.TPT.MPTCache.Ways = 4
	fit, _, hf := runPairs(t, small, 2, 4, 1, 4000, false)    // 8 MRs: fit in 16 entries
	spill, _, hs := runPairs(t, small, 2, 64, 1, 4000, false) // 128 MRs, round robin: most accesses miss
	hitFit := float64(hf.a.TPT().Stats.MPT.Hits) / float64(hf.a.TPT().Stats.MPT.Lookups)
	hitSpill := float64(hs.a.TPT().Stats.MPT.Hits) / float64(hs.a.TPT().Stats.MPT.Lookups)
	t.Logf("FastRegister throughput with a 16-entry MPT cache: 8 MRs %.2f M/s (MPT hit rate %.3f), 128 MRs %.2f M/s (%.3f)",
		fit/1e6, hitFit, spill/1e6, hitSpill)
	require.Greater(t, hitFit, 0.99)
	require.Less(t, hitSpill, 0.2)
	require.Less(t, spill, 0.9*fit)
}
