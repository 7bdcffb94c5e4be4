package mtt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

const fakeReadPS = 550 * sim.NS // docs/sources.md §1.1/§9: ~550 ns per dependent 64 B read

func newTestTranslator(t testing.TB, spec Spec) (*Translator, *fakeDMA) {
	t.Helper()
	env := sim.NewEnv(1)
	dma := newFakeDMA(env.Engine, fakeReadPS, 100*sim.NS, 32)
	tr, err := New("NIC.TPT", spec, dma, env)
	require.NoError(t, err)
	return tr, dma
}

// run issues r and runs the engine until it is done.
func run(t testing.TB, tr *Translator, r *Request) *Request {
	t.Helper()
	var rec recorder
	require.NoError(t, tr.Lookup(r, &rec, 7))
	tr.eng.Run()
	require.Equal(t, 1, rec.n, "done called once")
	require.Equal(t, uint64(7), rec.args[0])
	require.Equal(t, rec.at[0], r.End)
	return r
}

// TestMissCompletesWhenDMACompletes: a cold lookup misses in the MPT cache
// and then in the MTT cache; each miss completes exactly when its DMA read
// completes (two dependent reads), and a repeat hits in both caches after
// the hit latencies only.
func TestMissCompletesWhenDMACompletes(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, 1, 0x10000, 16, PageShift4K, RightRemoteRead)
	r := run(t, tr, &Request{Token: tok, PD: 1, VA: 0x10040, Length: 64, Access: AccessRemoteRead})
	require.Equal(t, OK, r.Reason)
	require.Equal(t, 2*fakeReadPS, r.End-r.Start, "MPT miss then MTT miss, each one DMA read")
	require.Equal(t, uint64(2), dma.Reads)
	require.Equal(t, []uint64{tr.spec.MPTBaseAddr + uint64(tok.Index())*32, tr.spec.MTTBaseAddr}, dma.ReadAddrs)
	require.Equal(t, uint64(32), tr.Stats.MPT.ICMReadBytes)
	require.Equal(t, uint64(64), tr.Stats.MTT.ICMReadBytes)

	tr.eng.RunUntil(tr.eng.Now() + 10*sim.NS) // off the edge the unit last ticked on
	r2 := run(t, tr, &Request{Token: tok, PD: 1, VA: 0x11000, Length: 64, Access: AccessRemoteRead})
	require.Equal(t, OK, r2.Reason)
	hit := tr.clock.CyclesToTicks(sim.Cycles(tr.spec.MPTCache.LatencyCycles + tr.spec.MTTCache.LatencyCycles))
	require.Equal(t, hit, r2.End-r2.Start, "two hits: MPT then MTT latency")
	require.Equal(t, uint64(2), dma.Reads, "no new read")
	require.Equal(t, []uint64{0x10_0000_1000}, r2.Pages)
	require.Equal(t, uint64(0), r2.Offset)
	require.Equal(t, uint64(2), tr.Stats.MTT.Lookups)
	require.Equal(t, uint64(1), tr.Stats.MTT.Hits)
	require.Equal(t, uint64(1), tr.Stats.MTT.Misses)
	require.Equal(t, uint64(2), tr.Stats.MTT.LatencyPS.Count())
	require.Equal(t, uint64(fakeReadPS), tr.Stats.MTT.LatencyPS.Max())
}

// TestConcurrentMissesToOneLineMerge: four requests for pages that share one
// 64 B MTT line, issued together, allocate one MSHR and cause one DMA read;
// the other three are merged misses and all complete with that read.
func TestConcurrentMissesToOneLineMerge(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, 1, 0, 16, PageShift4K, RightRemoteRead)
	var rec recorder
	reqs := make([]Request, 4)
	for i := range reqs {
		reqs[i] = Request{Token: tok, PD: 1, VA: uint64(i) * 4096, Length: 64, Access: AccessRemoteRead}
		require.NoError(t, tr.Lookup(&reqs[i], &rec, uint64(i)))
	}
	tr.eng.Run()
	require.Equal(t, 4, rec.n)
	for i := range reqs {
		require.Equal(t, OK, reqs[i].Reason)
		require.Equal(t, []uint64{0x10_0000_0000 + uint64(i)*4096}, reqs[i].Pages)
		require.Equal(t, reqs[0].End, reqs[i].End, "all complete with the one fill")
	}
	require.Equal(t, uint64(2), dma.Reads, "one MPT read and one MTT read")
	for _, ts := range []TableStats{tr.Stats.MPT, tr.Stats.MTT} {
		require.Equal(t, uint64(1), ts.Misses)
		require.Equal(t, uint64(3), ts.MergedMisses)
		require.Equal(t, uint64(0), ts.Hits)
	}
}

// TestMSHRExhaustionStalls: with one MSHR, a miss to a second line waits for
// the first fill; nothing is lost and the stall is counted.
func TestMSHRExhaustionStalls(t *testing.T) {
	spec := smallSpec()
	spec.MTTCache.MSHRsMax = 1
	tr, dma := newTestTranslator(t, spec)
	tok := registerMR(t, tr, 1, 0, 64, PageShift4K, RightRemoteRead)
	var rec recorder
	reqs := []Request{
		{Token: tok, PD: 1, VA: 0, Length: 8, Access: AccessRemoteRead},
		{Token: tok, PD: 1, VA: 16 << 12, Length: 8, Access: AccessRemoteRead}, // another MTT line
	}
	for i := range reqs {
		require.NoError(t, tr.Lookup(&reqs[i], &rec, uint64(i)))
	}
	tr.eng.Run()
	require.Equal(t, 2, rec.n)
	require.Greater(t, tr.Stats.MTT.MSHRStalls, uint64(0))
	require.Equal(t, uint64(2), tr.Stats.MTT.Misses)
	require.Equal(t, uint64(3), dma.Reads)
	require.Equal(t, 3*fakeReadPS, reqs[1].End-reqs[1].Start, "MPT fill, first MTT fill, then its own fill")
}

// TestDMABackPressureIsRespected: with one DMA request in flight allowed,
// every miss still completes, the unit never sends a refused request and
// counts the cycles it waited.
func TestDMABackPressureIsRespected(t *testing.T) {
	env := sim.NewEnv(1)
	dma := newFakeDMA(env.Engine, fakeReadPS, 100*sim.NS, 1)
	tr, err := New("NIC.TPT", smallSpec(), dma, env)
	require.NoError(t, err)
	tok := registerMR(t, tr, 1, 0, 512, PageShift4K, RightRemoteRead)
	var rec recorder
	reqs := make([]Request, 16)
	for i := range reqs {
		reqs[i] = Request{Token: tok, PD: 1, VA: uint64(i) * 32 << 12, Length: 8, Access: AccessRemoteRead}
		require.NoError(t, tr.Lookup(&reqs[i], &rec, uint64(i)))
	}
	require.NoError(t, tr.WriteMTT(0, 512, &rec, 99))
	env.Engine.Run()
	require.Equal(t, 17, rec.n)
	require.Greater(t, tr.Stats.DMAStalls, uint64(0))
	require.Equal(t, 0, tr.InFlight())
}

// TestRegistrationUpdatesOrInvalidatesCachedCopy: a registration write
// (WriteMPT, WriteMTT) to a line the cache holds keeps it (write-update) or
// drops it (write-invalidate), and reaches ICM as 64 B MTT units.
func TestRegistrationUpdatesOrInvalidatesCachedCopy(t *testing.T) {
	for _, pol := range []string{WriteUpdate, WriteInvalidate} {
		t.Run(pol, func(t *testing.T) {
			spec := smallSpec()
			spec.CacheWritePolicy = pol
			tr, dma := newTestTranslator(t, spec)
			tok := registerMR(t, tr, 1, 0, 16, PageShift4K, RightRemoteRead)
			run(t, tr, &Request{Token: tok, PD: 1, VA: 0, Length: 64, Access: AccessRemoteRead})
			mtt0 := tr.MTTLine(0)
			mpt := tr.MPTLine(tok.Index())
			require.True(t, tr.MTTCache().Contains(mtt0))
			require.True(t, tr.MPTCache().Contains(mpt))

			var rec recorder
			require.NoError(t, tr.WriteMTT(3, 10, &rec, 1)) // entries 3..12: lines 0 and 1
			require.NoError(t, tr.WriteMPT(tok.Index(), &rec, 2))
			tr.eng.Run()
			require.Equal(t, 2, rec.n, "both writes reported done")
			require.Equal(t, uint64(3), dma.Writes, "two 64 B MTT units and one 32 B MPT entry")
			require.Equal(t, uint64(128), tr.Stats.MTT.ICMWriteBytes)
			require.Equal(t, uint64(32), tr.Stats.MPT.ICMWriteBytes)

			r := run(t, tr, &Request{Token: tok, PD: 1, VA: 0, Length: 64, Access: AccessRemoteRead})
			require.Equal(t, OK, r.Reason)
			if pol == WriteUpdate {
				require.True(t, tr.MTTCache().Contains(mtt0))
				require.Equal(t, uint64(1), tr.Stats.MTT.Updates)
				require.Equal(t, uint64(1), tr.Stats.MPT.Updates)
				require.Equal(t, uint64(1), tr.Stats.MTT.Hits, "updated copy still hits")
			} else {
				require.Equal(t, uint64(1), tr.Stats.MTT.Invalidations)
				require.Equal(t, uint64(1), tr.Stats.MPT.Invalidations)
				require.Equal(t, uint64(2), tr.Stats.MTT.Misses, "invalidated copy is re-read")
				require.Equal(t, uint64(2), tr.Stats.MPT.Misses)
			}
		})
	}
}

func TestLookupBoundedByRequestsMax(t *testing.T) {
	spec := smallSpec()
	spec.RequestsMax = 2
	tr, _ := newTestTranslator(t, spec)
	tok := registerMR(t, tr, 1, 0, 1, PageShift4K, RightRemoteRead)
	var rec recorder
	reqs := make([]Request, 3)
	require.NoError(t, tr.Lookup(&reqs[0], &rec, 0))
	require.NoError(t, tr.Lookup(&reqs[1], &rec, 0))
	require.False(t, tr.CanAccept())
	require.ErrorIs(t, tr.Lookup(&reqs[2], &rec, 0), ErrBusy)
	_ = tok
	tr.eng.Run()
	require.True(t, tr.CanAccept())
}

func TestStatsRegistered(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	reg := sim.NewRegistry()
	require.NoError(t, tr.Stats.Register(reg, "NIC"))
	names := map[string]bool{}
	for _, s := range reg.Snapshot() {
		names[s.Name] = true
		require.NotEmpty(t, s.Unit)
		require.NotEmpty(t, s.Desc)
	}
	for _, n := range []string{"NIC.MTTCache.Hits", "NIC.MTTCache.Misses", "NIC.MTTCache.MergedMisses",
		"NIC.MTTCache.Evictions", "NIC.MTTCache.ICMReadBytes", "NIC.MTTCache.ICMWriteBytes",
		"NIC.MTTCache.LatencyPS", "NIC.MPTCache.Hits", "NIC.MPTCache.HitRate",
		"NIC.Translate.Refused.out-of-bounds"} {
		require.True(t, names[n], n)
	}
}

func TestSpecValidate(t *testing.T) {
	require.NoError(t, DefaultSpec().Validate())
	s := DefaultSpec()
	s.MTTCache.Ways = 3
	s.MPTCache.Policy = "fifo"
	s.MTTCache.LineBytes = 48
	s.CacheWritePolicy = "back"
	s.ClockPeriodPS = 0
	err := s.Validate()
	require.Error(t, err)
	for _, want := range []string{"mtt_cache.line_bytes = 48", `mpt_cache.policy = "fifo"`,
		`cache_write_policy = "back"`, "clock_period_ps = 0, want >= 1"} {
		require.True(t, strings.Contains(err.Error(), want), "%q missing from %v", want, err)
	}
	s = DefaultSpec()
	s.MTTCache.Ways = 3
	require.ErrorContains(t, s.Validate(), "mtt_cache.entries_max = 4096, want a multiple of entries per line (8) x ways (3)")
}

// A zero MPT entry size is a complaint about that field, not a division by
// zero in the MPT cache's geometry check.
func TestSpecValidateZeroMPTEntryBytesIsAnError(t *testing.T) {
	s := DefaultSpec()
	s.MPTEntryBytes = 0
	var err error
	require.NotPanics(t, func() { err = s.Validate() })
	require.ErrorContains(t, err, "mpt_entry_bytes = 0, want a power of two in 32..256")
}

// hitLoop re-issues its request on every completion.
type hitLoop struct {
	tr  *Translator
	req Request
	n   int
}

func (h *hitLoop) Handle(now sim.Tick, arg uint64) {
	h.n++
	if h.req.Reason != OK {
		panic(h.req.Reason)
	}
	if err := h.tr.Lookup(&h.req, h, 0); err != nil {
		panic(err)
	}
}

// BenchmarkTranslatorLookupHit is one timed translate request (MPT hit, MTT
// hit, events and all) in steady state: it must not allocate.
func BenchmarkTranslatorLookupHit(b *testing.B) {
	tr, _ := newTestTranslator(b, smallSpec())
	tok := registerMR(b, tr, 1, 0, 8, PageShift4K, RightRemoteRead)
	h := &hitLoop{tr: tr, req: Request{Token: tok, PD: 1, VA: 0x100, Length: 64, Access: AccessRemoteRead, Pages: make([]uint64, 0, 4)}}
	require.NoError(b, tr.Lookup(&h.req, h, 0))
	for h.n < 100 {
		tr.eng.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for start := h.n; h.n-start < b.N; {
		tr.eng.Step()
	}
}
