package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// 64 B DMA reads offered at a Poisson rate, 64 slots: the PCIe tags are
// the resource that limits them, near 58 M/s.
const openReads = "run: {seed: 1, warmup_us: 10, duration_us: 200}\n" +
	"generators: [{name: d, kind: dma_read, outstanding: 64, size_bytes: 64, window_bytes: 8192, arrival: {process: poisson, rate_mops: 10}}]\n"

// An open loop that completes what is offered (no drops, its backlog not
// grown over the window) is bound by its offered load, however busy a
// resource reads: at 55 M/s it met the rate with the tags 92 % busy and
// was said to be bound by the tags. Once it falls behind (70 M/s: its
// backlog grows), the tags are named.
func TestOpenLoopThatKeepsUpIsBoundByOfferedLoad(t *testing.T) {
	g := rdmaGen(t, openReads, "generators.d.arrival.rate_mops=55")
	require.Zero(t, g.Dropped)
	require.Equal(t, results.BoundOfferedLoad, g.BoundBy.Resource, "%+v", g.BoundBy)
	require.Equal(t, "NIC.PCIe.Tags", g.BoundBy.Busiest)
	require.GreaterOrEqual(t, g.BoundBy.Utilisation, results.BoundUtilisationMin, "the case the rule is for")
	require.InEpsilon(t, 55, g.ThroughputMops, 0.02)

	behind := rdmaGen(t, openReads, "generators.d.arrival.rate_mops=70")
	require.Equal(t, "NIC.PCIe.Tags", behind.BoundBy.Resource, "%+v", behind.BoundBy)
	require.Less(t, behind.ThroughputMops, 0.9*70)
}

// An open loop that drops arrivals fell behind even when its backlog did
// not grow; with no resource busy enough to name, its slots bind.
func TestOpenLoopThatDropsIsNotBoundByOfferedLoad(t *testing.T) {
	g := rdmaGen(t, openReads, "generators.d.arrival.rate_mops=20", "generators.d.outstanding=1",
		"generators.d.arrival.backlog_max=1")
	require.NotZero(t, g.Dropped)
	require.Equal(t, results.BoundWindow, g.BoundBy.Resource, "%+v", g.BoundBy)
}
