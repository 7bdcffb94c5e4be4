package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// randomReads registers footprint bytes on B, warms up with one pass of
// reads, then times n random 64 B RDMA Reads from A in batches of batch
// outstanding requests; it returns the mean time per read and B's MTT
// cache hit rate during the timed part.
func randomReads(t *testing.T, footprint uint64, n, batch int) (sim.Tick, float64) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, _ := p.a.register(srcVA, pg, MRAllowLocalWrite)
	remote, _ := p.b.register(dstVA, footprint, MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	rng := p.env.Stream("reach")
	lines := footprint / 64
	do := func(reads int) sim.Tick {
		t0 := p.env.Engine.Now()
		for done := 0; done < reads; done += batch {
			for i := 0; i < batch; i++ {
				va := dstVA + rng.Uint64N(lines)*64
				require.Equal(t, StatusSuccess, p.a.a.Read(qa, 0, lsge(local, srcVA+uint64(i)*64, 64), va, tok, 0))
			}
			p.run()
			res := p.a.poll()
			require.Len(t, res, batch)
			for _, r := range res {
				require.Equal(t, StatusSuccess, r.Status)
			}
		}
		return p.env.Engine.Now() - t0
	}
	do(n) // warm-up
	st := &p.b.a.tpt.Stats.MTT
	h0, m0 := st.Hits, st.Misses+st.MergedMisses
	d := do(n)
	hits, misses := st.Hits-h0, st.Misses+st.MergedMisses-m0
	return d / sim.Tick(n), float64(hits) / float64(hits+misses)
}

// docs/sources.md 3, mtt: random 64 B RDMA Reads over a registered footprint
// beyond the MTT cache's reach (4096 entries x 4 KiB = 16 MiB by default)
// miss in the responder's translation cache and pay a PCIe read each; they
// run measurably slower than reads within the reach.
func TestRandomReadsBeyondTranslationReachAreSlower(t *testing.T) {
	const n, batch = 2048, 16
	reach := uint64(mtt.DefaultSpec().MTTCache.EntriesMax) * pg
	within, hitIn := randomReads(t, reach/4, n, batch)
	beyond, hitOut := randomReads(t, reach*16, n, batch)
	t.Logf("random 64 B reads, %d outstanding: %d MiB footprint %.1f ns/read (MTT hit rate %.3f); %d MiB footprint %.1f ns/read (hit rate %.3f); ratio %.2f",
		batch, reach/4>>20, float64(within)/1000, hitIn, reach*16>>20, float64(beyond)/1000, hitOut, float64(beyond)/float64(within))
	require.Greater(t, hitIn, 0.95)
	require.Less(t, hitOut, 0.2)
	require.Greater(t, float64(beyond), 1.1*float64(within))
	// One at a time (latency): a miss adds a dependent ICM read.
	lin, _ := randomReads(t, reach/4, 256, 1)
	lout, _ := randomReads(t, reach*16, 256, 1)
	t.Logf("one outstanding: %.1f ns vs %.1f ns per read (+%.1f ns)", float64(lin)/1000, float64(lout)/1000, float64(lout-lin)/1000)
	require.Greater(t, lout, lin+200*sim.NS)
}

// Determinism: the two-host data path gives identical timing and counters
// for the same seed.
func TestTwoHostReadsDeterministic(t *testing.T) {
	d1, h1 := randomReads(t, 1<<22, 256, 8)
	d2, h2 := randomReads(t, 1<<22, 256, 8)
	require.Equal(t, d1, d2)
	require.Equal(t, h1, h2)
}

// BenchmarkRemoteRead64 is the simulator's cost per 64 B RDMA Read
// between two hosts (16 outstanding), with allocations.
func BenchmarkRemoteRead64(b *testing.B) {
	p := newPair(b, DefaultSpec())
	qa, _ := p.connect()
	local, _ := p.a.register(srcVA, pg, MRAllowLocalWrite)
	remote, _ := p.b.register(dstVA, 16*pg, MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	out := make([]Result, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		for j := 0; j < 16; j++ {
			if st := p.a.a.Read(qa, 0, lsge(local, srcVA+uint64(j)*64, 64), dstVA+uint64(i+j)%(16*pg/64)*64, tok, 0); st != StatusSuccess {
				b.Fatal(st)
			}
		}
		p.run()
		if n := p.a.a.PollCQ(p.a.cq, out); n != 16 {
			b.Fatal(n)
		}
	}
}
