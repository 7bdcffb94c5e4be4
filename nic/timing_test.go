package nic

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// pcieReadRoundTrip is the round trip of one small DMA read on the default
// link, measured on the link itself.
func pcieReadRoundTrip(t testing.TB, bytes uint64) sim.Tick {
	env := sim.NewEnv(1)
	link, err := pcie.New("PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(DefaultSpec().ClockPeriodPS)})
	require.NoError(t, err)
	var at sim.Tick
	require.NoError(t, link.DMA().Read(0x1000, bytes, sim.HandlerFunc(func(now sim.Tick, _ uint64) { at = now }), 0))
	env.Engine.Run()
	return at
}

func dmaListSpec() Spec {
	sp := DefaultSpec()
	sp.InlinePageListEntriesMax = 0 // every page list is fetched by DMA
	return sp
}

// docs/sources.md 5: a page list fetched by DMA costs one dependent PCIe read
// round trip (kernel commit 064e5262).
func TestInlinePageListSavesOneReadRoundTrip(t *testing.T) {
	inline := singleFRLatency(t, DefaultSpec(), 1)
	dma := singleFRLatency(t, dmaListSpec(), 1)
	rtt := pcieReadRoundTrip(t, 8)
	diff := dma - inline
	t.Logf("1-page FastRegister post->CQE: inline %v, DMA-fetched list %v, difference %v; 8 B PCIe read round trip %v", inline, dma, diff, rtt)
	require.InDelta(t, float64(rtt), float64(diff), 0.15*float64(rtt))
}

// docs/sources.md 5: ~1.3 M registrations/s with DMA-fetched lists and
// 3.8x that with inline lists on ConnectX-5 (the commit: "more than 3.5x";
// ConnectX-4 x8 gains 3.3x); the test requires >= 3.5x.
func TestInlinePageListThroughputSeveralTimesDMA(t *testing.T) {
	const pairs = 20000
	inl, inlLat, _ := runPairs(t, DefaultSpec(), 16, 8, 1, pairs, false)
	dma, dmaLat, _ := runPairs(t, dmaListSpec(), 16, 8, 1, pairs, false)
	t.Logf("FastRegister throughput, 16 QPs x 8 pairs outstanding, 1 page: inline %.2f M/s (mean latency %.0f ns), DMA list %.2f M/s (%.0f ns), ratio %.2f",
		inl/1e6, inlLat, dma/1e6, dmaLat, inl/dma)
	// Hardware: ~1.3 M I/O per second, each I/O a registration plus a send,
	// the data transfer and a remote invalidate on the same adapter; the
	// model runs registrations and invalidations only (docs/nic.md).
	require.GreaterOrEqual(t, dma, 1.0e6)
	require.LessOrEqual(t, dma, 2.0e6)
	require.GreaterOrEqual(t, inl, 4.5e6)
	require.GreaterOrEqual(t, inl/dma, 3.0)
}

// docs/sources.md 2 (Kalia et al.): batching WQEs behind one doorbell raises
// throughput when doorbells (uncached MMIO writes, 50-300 ns apart) are the
// limit, and costs latency against writing a lone WQE by MMIO, because the
// NIC must then read the WQEs by DMA (one dependent read).
func TestDeferChainRaisesThroughputAndAddsLatency(t *testing.T) {
	const pairs = 5000
	db := DefaultSpec()
	db.WQEByMMIO = false // every post rings a doorbell
	plain, plainLat, hp := runPairs(t, db, 1, 32, 1, pairs, false)
	chain, chainLat, hc := runPairs(t, db, 1, 32, 1, pairs, true)
	t.Logf("doorbell mode, 1 QP, 32 pairs outstanding: no DEFER %.2f M FR/s (%d doorbells, mean latency %.0f ns), FR(DEFER)+INV chains %.2f M FR/s (%d doorbells, %.0f ns)",
		plain/1e6, hp.a.Stats.Doorbells, plainLat, chain/1e6, hc.a.Stats.Doorbells, chainLat)
	require.Greater(t, chain, 1.3*plain)
	require.Equal(t, 2*hc.a.Stats.Doorbells, hp.a.Stats.Doorbells)

	// Latency at low load, adapter defaults (a lone WR goes by WQE-by-MMIO).
	_, loneLat, _ := runPairs(t, DefaultSpec(), 1, 1, 1, 200, false)
	_, chainLowLat, _ := runPairs(t, DefaultSpec(), 1, 1, 1, 200, true)
	rtt := pcieReadRoundTrip(t, 128)
	t.Logf("1 pair outstanding, defaults: lone WRs by WQE-by-MMIO %.0f ns post->CQE, DEFER chain (doorbell + WQE read) %.0f ns; 128 B read round trip %v",
		loneLat, chainLowLat, rtt)
	require.InDelta(t, rtt.Nanoseconds(), chainLowLat-loneLat, 0.3*rtt.Nanoseconds())
}

// More QPs raise throughput until a stage or PCIe saturates. Each QP keeps
// one FR(DEFER)+INV pair outstanding in doorbell mode, so one QP is latency
// bound (doorbell, WQE read, pipeline, CQE). With every QP posting on one
// core, the limit reached here is that core's uncached MMIO path: every
// pair rings one 8 B doorbell, and a core issues at most one per pcie
// MMIOIssueGapNS (docs/sources.md 2).
func TestMoreQPsRaiseThroughputUntilSaturation(t *testing.T) {
	sp := DefaultSpec()
	sp.WQEByMMIO = false
	sp.HostCores = 1
	var thr []float64
	qps := []int{1, 2, 4, 8, 16, 32}
	for _, n := range qps {
		x, lat, _ := runPairs(t, sp, n, 1, 1, uint64(1000*n), true)
		thr = append(thr, x)
		t.Logf("%2d QPs: %.2f M FastRegister/s, mean post->CQE %.0f ns", n, x/1e6, lat)
	}
	require.Greater(t, thr[1], 1.7*thr[0])
	require.Greater(t, thr[2], 1.7*thr[1])
	require.Less(t, thr[5], 1.05*thr[4])
	ps := pcie.DefaultSpec()
	limit := 1e9 / ps.MMIOIssueGapNS
	t.Logf("one core's uncached MMIO limit: %.2f M pairs/s", limit/1e6)
	require.InDelta(t, limit, thr[5], 0.05*limit)
}

// The gap between uncached MMIO writes is a core's, between its own
// stores (docs/sources.md 2): doorbells from 16 cores are not capped at one
// core's rate. 32 QPs in doorbell mode, one pair outstanding each, on 1
// core then on 16.
func TestUncachedDoorbellGapIsPerCore(t *testing.T) {
	sp := DefaultSpec()
	sp.WQEByMMIO = false
	sp.HostCores = 1
	one, _, h1 := runPairs(t, sp, 32, 1, 1, 32000, true)
	sp.HostCores = 16
	many, _, h16 := runPairs(t, sp, 32, 1, 1, 32000, true)
	limit := 1e9 / pcie.DefaultSpec().MMIOIssueGapNS
	t.Logf("1 core: %.2f M pairs/s (%d doorbells); 16 cores: %.2f M (%d doorbells); one core's limit %.2f M",
		one/1e6, h1.a.Stats.Doorbells, many/1e6, h16.a.Stats.Doorbells, limit/1e6)
	require.InDelta(t, limit, one, 0.05*limit)
	require.Greater(t, many, 1.5*limit)
}

// Determinism: 100k FastRegister+Invalidate pairs on 16 QPs, run twice,
// give byte-identical statistics.
func TestFastRegisterInvalidate100kOn16QPsDeterministic(t *testing.T) {
	const pairs = 100_000
	run := func() []byte {
		_, _, h := runPairs(t, DefaultSpec(), 16, 8, 1, pairs, false)
		var b bytes.Buffer
		require.NoError(t, h.reg.WriteJSON(&b))
		return b.Bytes()
	}
	start := time.Now()
	a := run()
	b := run()
	t.Logf("two runs of %d pairs in %v, %d bytes of statistics", pairs, time.Since(start), len(a))
	require.Equal(t, string(a), string(b))
	require.Contains(t, string(a), `"name": "NIC.FastRegister.Completed"`)
}

// The page-list mechanism, not a constant: with DMA-fetched lists each
// engine holds one dependent read at a time, so two engines (QPs spread
// over them) give about twice the throughput of one.
func TestMoreEnginesRaiseDMAListThroughput(t *testing.T) {
	one, _, _ := runPairs(t, dmaListSpec(), 16, 8, 1, 10000, false)
	sp := dmaListSpec()
	sp.ExecEngines = 2
	two, _, _ := runPairs(t, sp, 16, 8, 1, 10000, false)
	sp.PageListFetchesMax = 4
	deep, _, _ := runPairs(t, sp, 16, 8, 1, 10000, false)
	t.Logf("DMA-fetched lists: 1 engine %.2f M FR/s, 2 engines %.2f M FR/s, 2 engines x 4 reads %.2f M FR/s", one/1e6, two/1e6, deep/1e6)
	require.InDelta(t, 2.0, two/one, 0.2)
	require.Greater(t, deep, 1.5*two)
}

// TestTPTWriteSlotsServeEnginesInTurn: with several execution engines
// contending for the TPT's write slots (16 QPs x 8 pairs, inline lists: the
// upstream link binds and the slots stay taken), a freed slot goes to the
// engines in turn, so every QP keeps completing pairs; none starves
// behind engine 0, whose stages are woken first.
func TestTPTWriteSlotsServeEnginesInTurn(t *testing.T) {
	sp := DefaultSpec()
	sp.ExecEngines = 4
	h := newHarness(t, sp)
	d := newFRDriver(t, h, 16, 8, 1, 20000)
	d.start()
	h.run()
	require.Equal(t, uint64(20000), d.done)
	require.Positive(t, h.a.Stats.TPTWriteStalls, "the load never ran out of TPT write slots")
	mean := float64(d.done) / float64(len(d.perQP))
	for q, n := range d.perQP {
		require.Greater(t, float64(n), 0.5*mean, "QP %d (engine %d) completed %d pairs, the mean is %.0f", q, q%4, n, mean)
	}
}

// TestStageThroughputIsItsIntervalWhateverItsLatency: a pipelined stage
// takes ItemsPerCycle items every IntervalCycles however long each stays:
// the MPT update stage made the bound (64 cycles an item) gives the same
// rate with a latency of 8 cycles and of 100 (not a multiple of the
// interval), and nearly twice the rate with 2 items per interval, though
// the latency is below the interval.
func TestStageThroughputIsItsIntervalWhateverItsLatency(t *testing.T) {
	rate := func(latency, ipc uint32) float64 {
		sp := DefaultSpec()
		sp.MPTUpdate.IntervalCycles, sp.MPTUpdate.LatencyCycles, sp.MPTUpdate.ItemsPerCycle = 64, latency, ipc
		thr, _, _ := runPairs(t, sp, 16, 8, 1, 4000, false)
		return thr
	}
	short, long, wide := rate(8, 1), rate(100, 1), rate(8, 2)
	t.Logf("MPT update 1 item / 64 cycles: latency 8 %.2f M FR/s, latency 100 %.2f M FR/s; 2 items, latency 8: %.2f M FR/s", short/1e6, long/1e6, wide/1e6)
	// Two items (a FastRegister and an Invalidate) a pair: 1 GHz / 64 / 2.
	require.InDelta(t, 1e9/64/2, short, 0.02*short)
	require.InDelta(t, short, long, 0.02*short)
	// The doubled rate comes nearer the upstream link's bound on this
	// load (19 M pairs/s), whose queueing takes a little of it.
	require.Greater(t, wide, 1.85*short)
}

// TestTPTWriteSlotFreesWhenTheWriteLeavesTheNIC: a registration write is
// posted, so its TPT write slot frees as the link takes its last TLP, not
// when the host has made it visible. On the FastRegister+Invalidate load
// bound by the upstream link (gen3 x8), twice the lanes give nearly twice
// the rate; when the slots were held until the host made the write
// visible, the 16 slots bound the load at 1.14x.
func TestTPTWriteSlotFreesWhenTheWriteLeavesTheNIC(t *testing.T) {
	rate := func(lanes int) float64 {
		ls := pcie.DefaultSpec()
		ls.Lanes = lanes
		h := newHarnessOn(t, DefaultSpec(), ls)
		d := newFRDriver(t, h, 16, 8, 1, 20000)
		d.start()
		h.run()
		require.Equal(t, uint64(20000), d.done)
		return Throughput(&h.a.Stats.Ops[kindFastRegister])
	}
	x8, x16 := rate(8), rate(16)
	t.Logf("FastRegister+Invalidate pairs: gen3 x8 %.2f M/s, x16 %.2f M/s (%.2fx)", x8/1e6, x16/1e6, x16/x8)
	require.Greater(t, x16, 1.8*x8)
}
