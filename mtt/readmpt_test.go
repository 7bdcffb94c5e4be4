package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestReadMPTMissCostsOneICMReadAndHitCostsLatency: the send side's read of
// a key-table entry goes through the MPT cache like a data-path lookup: a
// cold read waits for one ICM read by DMA, a repeat hits after the cache's
// latency; neither checks access rights nor reads the MTT.
func TestReadMPTMissCostsOneICMReadAndHitCostsLatency(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, 1, 0x10000, 16, PageShift4K, 0) // no rights at all
	var rec recorder
	r := &Request{Token: tok}
	require.NoError(t, tr.ReadMPT(r, &rec, 3))
	tr.eng.Run()
	require.Equal(t, 1, rec.n)
	require.Equal(t, OK, r.Reason, "no access check is made")
	require.Equal(t, fakeReadPS, r.End-r.Start, "one MPT miss: one DMA read")
	require.Equal(t, uint64(1), dma.Reads)
	require.Equal(t, uint64(0), tr.Stats.MTT.Lookups, "the MTT is not read")

	tr.eng.RunUntil(tr.eng.Now() + 10_000)
	r2 := &Request{Token: tok}
	require.NoError(t, tr.ReadMPT(r2, &rec, 4))
	tr.eng.Run()
	require.Equal(t, tr.clock.CyclesToTicks(sim.Cycles(tr.spec.MPTCache.LatencyCycles)), r2.End-r2.Start, "a hit costs the MPT cache latency")
	require.Equal(t, uint64(1), dma.Reads, "a hit reads nothing")
	require.Equal(t, uint64(1), tr.Stats.MPT.Hits)
}

func TestReadMPTBeyondTableIsRefused(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	var rec recorder
	r := &Request{Token: MakeToken(tr.keys.Len()+5, 0)}
	require.NoError(t, tr.ReadMPT(r, &rec, 0))
	tr.eng.Run()
	require.Equal(t, ReasonIndexOutOfRange, r.Reason)
	require.Equal(t, uint64(0), dma.Reads)
}

// TestTranslationIsTheRegistrationTheCheckPassed: a lookup's pages are
// those of the registration whose token its check passed, taken with the
// check. An Invalidate and a new registration of the entry (new pages in
// its MTT range) while the lookup's MTT line is on its way do not change
// them: read then, they would send a granted access to another
// registration's pages.
func TestTranslationIsTheRegistrationTheCheckPassed(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, 1, 0x10000, 16, PageShift4K, RightRemoteWrite)
	var rec recorder
	r := &Request{Token: tok, PD: 1, VA: 0x10000 + 5*4096, Length: 64, Access: AccessRemoteWrite}
	require.NoError(t, tr.Lookup(r, &rec, 1))
	e, _ := tr.Keys().Entry(tok.Index())
	for tr.eng.Step() && tr.Stats.MTT.Lookups == 0 { // the check has passed; the MTT line is being read
	}
	require.NoError(t, tr.Keys().Invalidate(tok))
	moved := make([]uint64, 16)
	for i := range moved {
		moved[i] = 0x20_0000_0000 + uint64(i)*4096
	}
	require.NoError(t, tr.MTT().Set(e.MTTOffset, PageShift4K, moved))
	tr.eng.Run()
	require.Equal(t, OK, r.Reason)
	require.Equal(t, []uint64{0x10_0000_0000 + 5*4096}, r.Pages)
}
