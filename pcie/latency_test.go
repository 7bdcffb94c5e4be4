package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSingle64BReadRoundTripE5: with the defaults, one outstanding 64 B
// read takes the measured E5 median of 546 ns (docs/sources.md 1.1).
func TestSingle64BReadRoundTripE5(t *testing.T) {
	r, err := RunStream(DefaultSpec(), StreamConfig{Dir: DirRead, SizeBytes: 64, Outstanding: 1, Warmup: 10, Measure: 200})
	require.NoError(t, err)
	require.InDelta(t, 546, r.ReadLatency.Mean, 5, "64 B round trip %.1f ns", r.ReadLatency.Mean)
	t.Logf("64 B read round trip: mean %.1f ns, p99 %.1f ns", r.ReadLatency.Mean, r.ReadLatency.P99)
}

// TestReadLatencyCurveE5 compares the single-outstanding read latency with
// the E5 table of docs/sources.md 1.1 (within 3 %).
func TestReadLatencyCurveE5(t *testing.T) {
	for _, c := range []struct {
		size uint64
		ns   float64
	}{{64, 546}, {256, 626}, {512, 706}, {1024, 853}, {2048, 1133}} {
		r, err := RunStream(DefaultSpec(), StreamConfig{Dir: DirRead, SizeBytes: c.size, Outstanding: 1, Warmup: 5, Measure: 50})
		require.NoError(t, err)
		require.InEpsilon(t, c.ns, r.ReadLatency.Mean, 0.03, "%d B: %.1f ns, measured %.0f ns", c.size, r.ReadLatency.Mean, c.ns)
	}
}

// TestSmallReadGoodputBoundByTagsTimesLatency checks the bandwidth-delay
// relation: with realistic latency and few tags, small-read goodput is
// tags x size / round trip, far below the link.
func TestSmallReadGoodputBoundByTagsTimesLatency(t *testing.T) {
	for _, tags := range []int{1, 4, 8, 16} {
		spec := DefaultSpec()
		spec.TagsMax = tags
		spec.HostNPHCredits = 0
		single, err := RunStream(spec, StreamConfig{Dir: DirRead, SizeBytes: 64, Outstanding: 1, Warmup: 10, Measure: 100})
		require.NoError(t, err)
		r, err := RunStream(spec, StreamConfig{Dir: DirRead, SizeBytes: 64, Outstanding: 64, Warmup: 200, Measure: 3000})
		require.NoError(t, err)
		// A tag is held from the MRd to its completion: the round trip
		// less the engine's issue cost, which overlaps with waiting.
		hold := single.ReadLatency.Mean - float64(spec.ReadIssueCostPS)/1e3
		bound := float64(tags) * 64 * 8 / hold // Gb/s
		require.InEpsilon(t, bound, r.EffectiveGbps, 0.03, "tags %d: %.2f Gb/s vs tags x size / latency %.2f Gb/s", tags, r.EffectiveGbps, bound)
		require.Less(t, r.EffectiveGbps, ByteModelGoodputGbps(spec, DirRead, 64))
		require.Positive(t, r.Stats.TagStalls)
		t.Logf("tags %2d: %.2f Gb/s, bound %.2f Gb/s (round trip %.1f ns)", tags, r.EffectiveGbps, bound, single.ReadLatency.Mean)
	}
}
