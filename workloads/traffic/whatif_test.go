package traffic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What-if directions an architect expects of the model (docs/whatif.md).

// clockSets sets the NIC clock (the NIC and its translation unit share it).
func clockSets(periodPS int) []string {
	return []string{fmt.Sprintf("adapter.nic.clock_period_ps=%d", periodPS), fmt.Sprintf("adapter.mtt.clock_period_ps=%d", periodPS)}
}

// nicStage reports whether a meter is one of the NIC's clocked blocks: the
// pipeline's and the DMA engine's (it runs in NIC cycles too).
func nicStage(name string) bool {
	for _, p := range []string{"NIC.Doorbell", "NIC.Scheduler", "NIC.WQEFetch", "NIC.Engine[", "NIC.Completion", "NIC.DMA."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// A slower NIC clock costs throughput once a NIC stage binds: at 100 MHz
// the quickstart load is bound by a block clocked by the NIC (a pipeline
// stage or the DMA engine), below its rate at 1 GHz, and halving the clock
// again about halves it.
func TestSlowerNICClockCostsThroughputWhenANICStageBinds(t *testing.T) {
	const src = "run: {warmup_us: 20, duration_us: 200}\n" +
		"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n"
	fast := rdmaGen(t, src)
	slow := rdmaGen(t, src, clockSets(10000)...)
	slower := rdmaGen(t, src, clockSets(20000)...)
	t.Logf("1 GHz %.3f M/s (%s); 100 MHz %.3f (%s); 50 MHz %.3f (%s)", fast.ThroughputMops, fast.BoundBy,
		slow.ThroughputMops, slow.BoundBy, slower.ThroughputMops, slower.BoundBy)
	require.True(t, nicStage(slow.BoundBy.Resource), "100 MHz: bound by %s", slow.BoundBy)
	require.Less(t, slow.ThroughputMops, 0.9*fast.ThroughputMops)
	require.True(t, nicStage(slower.BoundBy.Resource), "50 MHz: bound by %s", slower.BoundBy)
	require.InEpsilon(t, slow.ThroughputMops/2, slower.ThroughputMops, 0.1)
}

// Kalia et al.'s doorbell batching (docs/sources.md 2): one QP posting
// FastRegister+Invalidate chains, each request by WQE-by-MMIO against one
// doorbell per 16 deferred requests. Batching saves the posting core the
// write-combined stores of every WQE, so one QP's throughput rises; it
// costs one dependent DMA read of the WQEs, well under a microsecond of
// latency (Kalia: up to about 1 µs).
func TestDoorbellBatchingRaisesOneQPThroughputAndAddsUnderAMicrosecond(t *testing.T) {
	const run = "run: {warmup_us: 10, duration_us: 300}\n"
	gen := "generators: [{name: g, kind: fast_register_invalidate, streams: 1, outstanding: %d, defer_chain: %d}]\n"
	mmio := rdmaGen(t, run+fmt.Sprintf(gen, 32, 1))
	batched := rdmaGen(t, run+fmt.Sprintf(gen, 32, 16))
	t.Logf("32 chains: WQE-by-MMIO %.3f M/s (%s), a doorbell per 16 WRs %.3f M/s (%s): x%.2f",
		mmio.ThroughputMops, mmio.BoundBy, batched.ThroughputMops, batched.BoundBy, batched.ThroughputMops/mmio.ThroughputMops)
	require.Greater(t, batched.ThroughputMops, 1.1*mmio.ThroughputMops, "Kalia et al. measured +27 %")

	lone := rdmaGen(t, run+fmt.Sprintf(gen, 1, 1))
	chain := rdmaGen(t, run+fmt.Sprintf(gen, 1, 2))
	added := chain.LatencyNS.P50 - lone.LatencyNS.P50
	t.Logf("one chain: WQE-by-MMIO p50 %.0f ns, one doorbell for both WRs p50 %.0f ns: +%.0f ns", lone.LatencyNS.P50, chain.LatencyNS.P50, added)
	require.Greater(t, added, 0.0, "the doorbell path reads the WQEs by DMA")
	require.Less(t, added, 1000.0)
}

// A larger MTT cache moves the translation-reach knee: random translations
// over 32 MiB miss most of the time in the default 16 MiB-reach cache and
// hit in one of 64 MiB reach; below both reaches both hit, above both
// both miss.
func TestLargerMTTCacheMovesTheTranslationKnee(t *testing.T) {
	const src = "run: {warmup_us: 60, ops: 3000}\nregions: [{name: d, pages: 2048}]\n" +
		"generators: [{name: g, kind: translate, region: d, outstanding: 32}]\n"
	hit := func(pages, entries int) float64 {
		r := runSrc(t, src, fmt.Sprintf("regions.d.pages=%d", pages), fmt.Sprintf("adapter.mtt.mtt_cache.entries_max=%d", entries))
		return r.Points[0].MTT.MTTHitRate
	}
	for _, c := range []struct {
		mib          int
		small, large bool // hits mostly in the 16 MiB and the 64 MiB cache
	}{{8, true, true}, {32, false, true}, {128, false, false}} {
		pages := c.mib << 8
		s, l := hit(pages, 4096), hit(pages, 16384)
		t.Logf("%d MiB: hit rate %.3f with a 16 MiB reach, %.3f with 64 MiB", c.mib, s, l)
		require.Equal(t, c.small, s > 0.9, "%d MiB, 16 MiB reach: %.3f", c.mib, s)
		require.Equal(t, c.large, l > 0.9, "%d MiB, 64 MiB reach: %.3f", c.mib, l)
	}
}

// More DMA channels raise a DMA-bound rate: at 100 MHz the quickstart load
// is bound by the DMA engine's write channels (each write request takes
// its channel for some NIC cycles); twice the channels carry about twice
// the FastRegister+Invalidate chains, until the next resource binds.
func TestMoreDMAChannelsRaiseADMABoundRate(t *testing.T) {
	const src = "run: {warmup_us: 20, duration_us: 200}\n" +
		"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n"
	base := rdmaGen(t, src, clockSets(10000)...)
	more := rdmaGen(t, src, append(clockSets(10000), "adapter.pcie.dma_write_channels=4")...)
	t.Logf("100 MHz: %.3f M chains/s (%s); 4 write channels %.3f (%s)", base.ThroughputMops, base.BoundBy,
		more.ThroughputMops, more.BoundBy)
	require.Equal(t, "NIC.DMA.WriteChannels", base.BoundBy.Resource)
	require.GreaterOrEqual(t, more.ThroughputMops, 1.5*base.ThroughputMops)
}

// A shorter validate stage keeps its MPT reads overlapping: the stage is
// in order and holds validate_reads_max requests while their MPT reads are
// outstanding, whatever its latency. Binds on 512 windows warm a cold MPT
// cache in the window (connectx-6-dx, 32 QPs x 16, WQEs by doorbell): a
// quarter of the latency gives at least the rate. (When the stage's depth
// came from its latency alone, 2 cycles held 2 reads and the run read
// 2.08 M binds/s against 57.44.)
func TestShorterValidateLatencyKeepsItsMPTReadsOverlapping(t *testing.T) {
	const src = "adapter: {preset: connectx-6-dx, nic: {wqe_by_mmio: false}}\nrun: {seed: 1, warmup_us: 50, duration_us: 100}\n" +
		"generators: [{name: g, kind: bind_invalidate, streams: 32, outstanding: 16}]\n"
	base := runSrc(t, src).Points[0].Generators[0]
	short := runSrc(t, src, "adapter.nic.validate.latency_cycles=2").Points[0].Generators[0]
	t.Logf("%.2f M/s; validate 2 cycles: %.2f (%s)", base.ThroughputMops, short.ThroughputMops, short.BoundBy)
	require.GreaterOrEqual(t, short.ThroughputMops, 0.99*base.ThroughputMops)
}
