package traffic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// The chain completes with the Invalidate's CQE; the parts are the Bind's
// and the Invalidate's own latencies; setup registered one MR per stream
// with the firmware (~50 µs each, one at a time) before warm-up.
func TestBindInvalidateRunsAndReportsParts(t *testing.T) {
	r := runSrc(t, "run: {warmup_us: 5, duration_us: 100}\ngenerators:\n  - {name: b, kind: bind_invalidate, streams: 2, outstanding: 2, window_bytes: {uniform: {min: 1, max: 65536}}}\n")
	p := r.Points[0]
	g := p.Generators[0]
	require.NotZero(t, g.Completed)
	require.Zero(t, g.Failed)
	require.Len(t, g.Parts, 2)
	require.Equal(t, "b/bind", g.Parts[0].Name)
	require.Equal(t, "invalidate", g.Parts[1].Kind)
	require.Less(t, g.Parts[0].LatencyNS.P50, g.LatencyNS.P50, "the Bind's CQE comes before the chain's end")
	require.GreaterOrEqual(t, p.SetupPS, uint64(100_000_000), "two RegisterMr of ~50 µs each, one after the other")
	require.NotZero(t, statValue(t, p, "NIC.Bind.Completed"))
}

// Bind rate vs QP count: with one chain in flight per QP, one QP
// is latency-bound; more QPs raise the rate until the NIC pipeline
// saturates, after which more QPs only add latency (Little's law).
func TestBindRateRisesWithQPsUntilThePipelineSaturates(t *testing.T) {
	r := runBuiltin(t, "bind-rate-vs-qps.yaml", "run.duration_us=300")
	require.Len(t, r.Points, 6)
	var thr, p50 []float64
	for _, p := range r.Points {
		g := p.Generators[0]
		require.Zero(t, g.Failed, p.Label)
		thr = append(thr, g.ThroughputMops)
		p50 = append(p50, g.LatencyNS.P50)
		t.Logf("%s: %.3f M chains/s, p50 %.0f ns", p.Label, g.ThroughputMops, g.LatencyNS.P50)
	}
	require.Greater(t, thr[1], 1.4*thr[0], "a second QP raises the rate")
	for i := 1; i < len(thr); i++ {
		require.GreaterOrEqual(t, thr[i], 0.97*thr[i-1], "more QPs never lower the rate much")
	}
	require.InDelta(t, thr[5], thr[4], 0.1*thr[4], "saturated: 32 QPs little faster than 16")
	require.Greater(t, p50[5], 1.5*p50[4], "past saturation more QPs queue")
	require.NotEqual(t, results.BoundWindow, r.Points[5].Generators[0].BoundBy.Resource, "saturated: a resource binds")
}

// The same file and seed give byte-identical results.
func TestBindAndRegisterAreDeterministic(t *testing.T) {
	src := "run: {warmup_us: 5, duration_us: 200}\ngenerators:\n" +
		"  - {name: b, kind: bind_invalidate, streams: 3, outstanding: 2, arrival: {rate_mops: 5}, window_bytes: {uniform: {min: 64, max: 8192}}}\n" +
		"  - {name: r, kind: register_mr, outstanding: 2, pages: {uniform: {min: 1, max: 64}}, pieces: 3}\n"
	a, err := json.Marshal(runSrc(t, src))
	require.NoError(t, err)
	b, err := json.Marshal(runSrc(t, src))
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
}
