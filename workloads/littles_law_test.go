package workloads

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
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
		f, err := Load(writeTemp(t, `name: little
adapter: {preset: e5-gen3x8}
run: {seed: 3, warmup_us: 10, duration_us: `+strconv.FormatFloat(c.durationUS, 'g', -1, 64)+`}
generators: [{name: r, kind: dma_read, streams: 1, outstanding: `+itoa(c.outstanding)+`, size_bytes: 64, window_bytes: 8192}]
`), Options{})
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
