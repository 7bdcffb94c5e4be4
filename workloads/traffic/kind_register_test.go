package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// RegisterMr latency vs size: ~50 µs of fixed firmware work plus
// ~0.3 µs per page pinned (docs/sources.md 4; nic's
// TestRegisterMrLatencyGrowsWithPagesFixedCostDominatesSmall). Small
// registrations cost the fixed part; latency grows with pages.
func TestRegisterMrLatencyGrowsWithPagesFixedCostDominatesSmall(t *testing.T) {
	r := runBuiltin(t, "registermr-latency-vs-size.yaml")
	require.Len(t, r.Points, 5)
	pages := []float64{1, 16, 256, 4096, 65536}
	var reg []float64
	for i, p := range r.Points {
		g := p.Generators[0]
		require.Zero(t, g.Failed, p.Label)
		require.Equal(t, uint64(20), g.Completed, p.Label)
		require.Len(t, g.Parts, 2)
		l := g.Parts[0].LatencyNS.P50
		reg = append(reg, l)
		t.Logf("%s: RegisterMr p50 %.1f µs (%.0f ns/page above 50 µs), DeregisterMr p50 %.1f µs",
			p.Label, l/1e3, (l-50e3)/pages[i], g.Parts[1].LatencyNS.P50/1e3)
	}
	for i := 1; i < len(reg); i++ {
		require.Greater(t, reg[i], reg[i-1], "latency grows with pages")
	}
	require.InDelta(t, 50e3, reg[0], 2e3, "1 page: the fixed firmware cost")
	require.Less(t, reg[1], 1.2*reg[0], "16 pages: still dominated by the fixed cost")
	perPage := (reg[4] - reg[3]) / (pages[4] - pages[3])
	require.InDelta(t, 330, perPage, 50, "the per-page cost (ns) of large registrations")
}

// With more than one registration in flight the firmware's one command at
// a time makes them queue: the RegisterMr latency grows, the rate does not.
func TestRegisterMrOutstandingQueuesOnTheFirmware(t *testing.T) {
	one := runSrc(t, "run: {warmup_us: 0, ops: 10}\ngenerators: [{name: r, kind: register_mr}]\n").Points[0].Generators[0]
	four := runSrc(t, "run: {warmup_us: 0, ops: 10}\ngenerators: [{name: r, kind: register_mr, outstanding: 4}]\n").Points[0].Generators[0]
	t.Logf("1 outstanding: %.4f M/s, register p50 %.1f µs; 4: %.4f M/s, register p50 %.1f µs",
		one.ThroughputMops, one.Parts[0].LatencyNS.P50/1e3, four.ThroughputMops, four.Parts[0].LatencyNS.P50/1e3)
	require.Greater(t, four.Parts[0].LatencyNS.P50, 1.5*one.Parts[0].LatencyNS.P50)
	require.Less(t, four.ThroughputMops, 1.5*one.ThroughputMops)
}

// Pieces split the chain; the registration is of the same pages and costs
// the same.
func TestRegisterMrPiecesSplitTheChainAtTheSameCost(t *testing.T) {
	one := runSrc(t, "run: {warmup_us: 0, ops: 5}\ngenerators: [{name: r, kind: register_mr, pages: 64}]\n").Points[0].Generators[0]
	many := runSrc(t, "run: {warmup_us: 0, ops: 5}\ngenerators: [{name: r, kind: register_mr, pages: 64, pieces: 7}]\n").Points[0].Generators[0]
	require.Zero(t, many.Failed)
	require.InDelta(t, one.Parts[0].LatencyNS.P50, many.Parts[0].LatencyNS.P50, 1e3)
}
