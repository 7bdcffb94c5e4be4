package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// statFloat is the value (or count) of the run statistic name.
func statFloat(t *testing.T, p *results.PointResult, name string) float64 {
	t.Helper()
	for _, s := range p.Stats {
		if s.Name == name {
			if s.Value != nil {
				return *s.Value
			}
			require.NotNil(t, s.Count, name)
			return float64(*s.Count)
		}
	}
	t.Fatalf("no statistic %s", name)
	return 0
}

// Writes spread over 4,096 remote MRs, four times the responder's
// 1,024-entry MPT cache: drawn uniformly they hit about a quarter of the
// time; drawn from a Zipf distribution (s = 0.99, MR 0 hottest) the hot
// MRs stay cached and most lookups hit.
func TestZipfRemoteMRChoiceRaisesTheResponderMPTHitRate(t *testing.T) {
	const base = "run: {warmup_us: 20, duration_us: 2000}\n" +
		"generators: [{name: w, kind: rdma_write, streams: 4, outstanding: 4, size_bytes: 64, remote_pages: 1, remote_mrs: 4096"
	hit := func(extra string) float64 {
		r := runSrc(t, base+extra+"}]\n")
		require.Len(t, r.Points, 1)
		p := &r.Points[0]
		require.Zero(t, p.Generators[0].Failed)
		require.Greater(t, p.Generators[0].Completed, uint64(1000))
		return statFloat(t, p, "B.NIC.TPT.MPTCache.HitRate")
	}
	uniform := hit("")
	zipf := hit(", remote_mr: {zipf: {min: 0, max: 4095, step: 1, s: 0.99}}")
	t.Logf("responder MPT cache hit rate over 4096 MRs: uniform %.3f, zipf s=0.99 %.3f", uniform, zipf)
	require.InDelta(t, 0.25, uniform, 0.08, "uniform over 4x the cache hits about a quarter")
	require.Greater(t, zipf, uniform+0.4, "a skewed choice keeps the hot MRs cached")
}

// One remote MR and no remote_mr key draw no MR index: the random stream
// and every figure stay those of a file written before the keys existed.
func TestOneRemoteMRDrawsNoIndex(t *testing.T) {
	const src = "run: {warmup_us: 5, duration_us: 50}\ngenerators: [{name: w, kind: rdma_write, size_bytes: {uniform: {min: 64, max: 4096}}"
	a := runSrc(t, src+"}]\n")
	b := runSrc(t, src+", remote_mrs: 1}]\n")
	require.Equal(t, a.Points[0].Generators, b.Points[0].Generators)
}

// The MR index must name one of the remote MRs; send keeps one MR.
func TestRemoteMRChoiceOutOfRangeRefusedAtLoad(t *testing.T) {
	msg := loadErr(t, "generators: [{name: w, kind: rdma_write, remote_mrs: 8, remote_mr: {uniform: {min: 0, max: 8}}}]\n")
	require.Contains(t, msg, "remote_mr")
	require.Contains(t, msg, "0..7")
	msg = loadErr(t, "generators: [{name: s, kind: send, remote_mrs: 2}]\n")
	require.Contains(t, msg, "remote_mrs and remote_mr apply to rdma_write and rdma_read")
	msg = loadErr(t, "generators: [{name: w, kind: rdma_write, remote_mrs: 65536, remote_pages: 32}]\n")
	require.Contains(t, msg, "window on host b")
}
