package traffic

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// TestClosedLoopThroughputObeysLittlesLaw: with N operations always in
// flight, throughput x mean latency = N (Little's law). Throughput counts
// every completion inside the measured window, so it holds even for a short
// window; counting only operations that arrived after warm-up would read low
// by about N / (window x throughput).
func TestClosedLoopThroughputObeysLittlesLaw(t *testing.T) {
	for _, c := range []struct {
		outstanding int
		durationUS  float64
	}{{8, 20}, {32, 20}, {32, 200}} {
		f, err := workloads.Load(writeTemp(t, `name: little
adapter: {preset: e5-gen3x8}
run: {seed: 3, warmup_us: 10, duration_us: `+strconv.FormatFloat(c.durationUS, 'g', -1, 64)+`}
generators: [{name: r, kind: dma_read, streams: 1, outstanding: `+strconv.Itoa(c.outstanding)+`, size_bytes: 64, window_bytes: 8192}]
`), workloads.Options{})
		require.NoError(t, err)
		res, err := RunFile(f, RunOptions{})
		require.NoError(t, err)
		g := res.Points[0].Generators[0]
		inFlight := g.ThroughputMops * g.LatencyNS.Mean / 1e3 // ops/us x us
		t.Logf("outstanding %d, window %v us: %.2f Mops/s x %.1f ns = %.2f in flight",
			c.outstanding, c.durationUS, g.ThroughputMops, g.LatencyNS.Mean, inFlight)
		require.InDelta(t, float64(c.outstanding), inFlight, 0.03*float64(c.outstanding))
	}
}

// TestLatencyCDFIsMonotoneAndSpansMinToMax: the CDF in results runs from the
// minimum to the maximum latency, never decreasing, with the summary's
// percentiles on it.
func TestLatencyCDFIsMonotoneAndSpansMinToMax(t *testing.T) {
	f, err := workloads.Load(writeTemp(t, `name: cdf
adapter: {preset: e5-gen3x8}
run: {seed: 5, warmup_us: 10, duration_us: 100}
generators: [{name: w, kind: dma_write, arrival: {process: poisson, rate_mops: 20}, outstanding: 16, size_bytes: {uniform: {min: 64, max: 4096}}}]
`), workloads.Options{})
	require.NoError(t, err)
	res, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	l := res.Points[0].Generators[0].LatencyNS
	require.Len(t, l.CDF, len(results.CDFLevels))
	require.Equal(t, l.Min, l.CDF[0].NS)
	require.Equal(t, l.Max, l.CDF[len(l.CDF)-1].NS)
	for i := 1; i < len(l.CDF); i++ {
		require.GreaterOrEqual(t, l.CDF[i].NS, l.CDF[i-1].NS, "q=%v", l.CDF[i].Q)
		if l.CDF[i].Q == 0.5 {
			require.Equal(t, l.P50, l.CDF[i].NS)
		}
	}
}

// TestColdFillWarningFlagsACacheStillWarming: a window in which the MTT
// cache still fills empty lines (a 64 MiB footprint, a 256 MiB-reach cache,
// 50 us of warm-up) is flagged; with a warm-up long enough to fill it, the
// same point is not.
func TestColdFillWarningFlagsACacheStillWarming(t *testing.T) {
	sets := []string{"regions.data.pages=16384", "adapter.mtt.mtt_cache.entries_max=65536", "sweep=null"}
	f, err := workloads.Load("../translation-reach-cliff.yaml", workloads.Options{Sets: sets})
	require.NoError(t, err)
	r, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	require.Len(t, r.Points[0].Warnings, 1)
	require.Contains(t, r.Points[0].Warnings[0], "MTT cache still filling")
	require.Contains(t, r.Points[0].Warnings[0], "run.warmup_us")

	f, err = workloads.Load("../translation-reach-cliff.yaml", workloads.Options{Sets: append(sets, "run.warmup_us=3000")})
	require.NoError(t, err)
	r, err = RunFile(f, RunOptions{})
	require.NoError(t, err)
	require.Empty(t, r.Points[0].Warnings)
	require.Equal(t, 1.0, r.Points[0].MTT.MTTHitRate, "a warm cache holding the whole footprint always hits")
}
