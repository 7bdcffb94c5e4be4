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
adapter: {preset: generic}
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

// TestLatencyBucketsCoverEverySampleFromMinToMax: the histogram kept in
// results holds every measured sample, in increasing, non-overlapping
// buckets from the minimum to the maximum latency, with the median inside
// the bucket where half the samples are reached.
func TestLatencyBucketsCoverEverySampleFromMinToMax(t *testing.T) {
	f, err := workloads.Load(writeTemp(t, `name: cdf
adapter: {preset: generic}
run: {seed: 5, warmup_us: 10, duration_us: 100}
generators: [{name: w, kind: dma_write, arrival: {process: poisson, rate_mops: 20}, outstanding: 16, size_bytes: {uniform: {min: 64, max: 4096}}}]
`), workloads.Options{})
	require.NoError(t, err)
	res, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	l := res.Points[0].Generators[0].LatencyNS
	bs, err := l.Buckets()
	require.NoError(t, err)
	require.NotEmpty(t, bs)
	require.LessOrEqual(t, len(bs), results.LatencyBucketsMax)
	var n uint64
	median := false
	for _, b := range bs {
		if n < (l.Count+1)/2 && n+b.Count >= (l.Count+1)/2 {
			median = l.P50*1e3 >= float64(b.LoPS) && l.P50*1e3 <= float64(b.HiPS)
		}
		n += b.Count
	}
	require.Equal(t, l.Count, n)
	require.LessOrEqual(t, float64(bs[0].LoPS), l.Min*1e3)
	require.GreaterOrEqual(t, float64(bs[len(bs)-1].HiPS), l.Max*1e3)
	require.True(t, median, "p50 %v ns lies in the bucket holding the median sample", l.P50)
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
