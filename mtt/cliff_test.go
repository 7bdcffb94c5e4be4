package mtt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// closedLoop keeps n translate requests in flight: random 64 B remote reads,
// 64 B-aligned, uniformly spread over one MR of footprint bytes.
type closedLoop struct {
	tr           *Translator
	rng          *rand.Rand
	tok          Token
	slots        uint64 // 64 B slots in the footprint
	reqs         []Request
	done         int
	warm, total  int
	tWarm, tEnd  sim.Tick
	hits0, miss0 uint64
	hits, misses uint64
	merged0      uint64
	merged       uint64
	latSum       sim.Tick
}

func (g *closedLoop) issue(i uint64) {
	g.reqs[i] = Request{Token: g.tok, PD: 1, VA: g.rng.Uint64N(g.slots) * 64, Length: 64,
		Access: AccessRemoteRead, Pages: g.reqs[i].Pages}
	if err := g.tr.Lookup(&g.reqs[i], g, i); err != nil {
		panic(err)
	}
}

func (g *closedLoop) Handle(now sim.Tick, arg uint64) {
	if g.reqs[arg].Reason != OK {
		panic(fmt.Sprintf("lookup refused: %v", g.reqs[arg].Reason))
	}
	if g.done == g.total {
		return // stopped: completions of the same fill still arrive
	}
	g.done++
	if g.done > g.warm {
		g.latSum += g.reqs[arg].End - g.reqs[arg].Start
	}
	st := &g.tr.Stats.MTT
	switch g.done {
	case g.warm:
		g.tWarm, g.hits0, g.miss0, g.merged0 = now, st.Hits, st.Misses+st.MergedMisses, st.MergedMisses
	case g.total:
		g.tEnd, g.hits, g.misses = now, st.Hits-g.hits0, st.Misses+st.MergedMisses-g.miss0
		g.merged = st.MergedMisses - g.merged0
		g.tr.eng.Stop()
		return
	}
	g.issue(arg)
}

type cliffPoint struct {
	footprint uint64
	perUS     float64 // lookups per simulated microsecond
	hitRate   float64 // MTT cache, measurement window
	meanLatNS float64 // request latency, measurement window
	merged    float64 // share of MTT accesses that merged onto an in-flight miss
}

// measureCliffPoint runs one closed-loop measurement and returns its figures.
func measureCliffPoint(t *testing.T, seed uint64, entries uint32, shift uint8, footprint uint64) cliffPoint {
	t.Helper()
	env := sim.NewEnv(seed)
	dma := newCliffDMA(t, env)
	spec := DefaultSpec()
	spec.MTTCache.EntriesMax = entries
	pages := uint32((footprint + 1<<shift - 1) >> shift)
	spec.MTTEntriesMax = max(pages, 1024)
	tr, err := New("NIC.TPT", spec, dma, env)
	require.NoError(t, err)
	tok := registerMR(t, tr, 1, 0, pages, shift, RightRemoteRead)
	const outstanding = 32
	g := &closedLoop{tr: tr, rng: env.Stream("Generator"), tok: tok, slots: footprint / 64,
		reqs: make([]Request, outstanding)}
	g.warm = max(4000, 3*int(entries))
	g.total = g.warm + 6000
	for i := range g.reqs {
		g.reqs[i].Pages = make([]uint64, 0, 2)
		g.issue(uint64(i))
	}
	env.Engine.Run()
	require.Equal(t, g.total, g.done)
	n := float64(g.total - g.warm)
	dt := g.tEnd - g.tWarm
	return cliffPoint{footprint: footprint, perUS: n / (float64(dt) / float64(sim.US)),
		hitRate:   float64(g.hits) / float64(g.hits+g.misses),
		meanLatNS: float64(g.latSum) / n / float64(sim.NS),
		merged:    float64(g.merged) / float64(g.hits+g.misses)}
}

// knee is the footprint at which throughput falls to half of its plateau
// (the first point's), interpolated on log-log axes.
func knee(pts []cliffPoint) float64 {
	half := pts[0].perUS / 2
	for i := 1; i < len(pts); i++ {
		if pts[i].perUS <= half {
			a, b := pts[i-1], pts[i]
			f := (math.Log(a.perUS) - math.Log(half)) / (math.Log(a.perUS) - math.Log(b.perUS))
			return math.Exp(math.Log(float64(a.footprint)) + f*(math.Log(float64(b.footprint))-math.Log(float64(a.footprint))))
		}
	}
	return math.Inf(1)
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.3g KiB", b/(1<<10))
}

// TestTranslationReachCliff: the throughput of random 64 B translated
// lookups (32 outstanding) stays on a plateau while the registered footprint
// fits the MTT cache's reach (entries x page size) and falls past it, each
// miss costing one dependent ICM read over PCIe; doubling the cache moves
// the knee 2x, 2 MiB pages move it 512x.
func TestTranslationReachCliff(t *testing.T) {
	seed := testSeed(t, 4)
	t.Logf("DMA model: %s", cliffDMAName)
	type cfg struct {
		entries uint32
		shift   uint8
	}
	cfgs := []cfg{{512, PageShift4K}, {1024, PageShift4K}, {512, PageShift2M}, {1024, PageShift2M}}
	knees := map[cfg]float64{}
	for _, c := range cfgs {
		reach := uint64(c.entries) << c.shift
		var pts []cliffPoint
		for k := -6; k <= 6; k++ { // half-octave steps from reach/8 to 8 x reach
			fp := uint64(float64(reach)*math.Pow(2, float64(k)/2)) &^ 63
			pts = append(pts, measureCliffPoint(t, seed, c.entries, c.shift, fp))
		}
		kn := knee(pts)
		knees[c] = kn
		t.Logf("MTT cache %d entries (4 ways, 64 B lines), %d KiB pages: reach %s, knee (half plateau) %s = %.2f x reach",
			c.entries, 1<<(c.shift-10), fmtBytes(float64(reach)), fmtBytes(kn), kn/float64(reach))
		for _, p := range pts {
			t.Logf("  footprint %9s (%5.3g x reach): %7.1f lookups/us, MTT hit rate %5.1f %% (merged misses %4.1f %%), mean latency %6.1f ns",
				fmtBytes(float64(p.footprint)), float64(p.footprint)/float64(reach), p.perUS, 100*p.hitRate, 100*p.merged, p.meanLatNS)
		}
		plateau, floor := pts[0].perUS, pts[len(pts)-1].perUS
		require.InDelta(t, 1, pts[2].perUS/plateau, 0.1, "reach/4 is still on the plateau")
		require.Greater(t, plateau/floor, 5.0, "8 x reach: throughput falls by more than 5x")
		require.Greater(t, pts[0].hitRate, 0.99)
		require.Less(t, pts[len(pts)-1].hitRate, 0.2)
		require.InDelta(t, 0, math.Log2(kn/float64(reach)), 1.5, "knee within a factor 2.8 of entries x page size")
	}
	for _, e := range []uint32{512, 1024} {
		r := knees[cfg{e, PageShift2M}] / knees[cfg{e, PageShift4K}]
		t.Logf("knee ratio 2 MiB / 4 KiB pages, %d entries: %.1f (want 512)", e, r)
		require.InDelta(t, 0, math.Log2(r/512), 0.5, "2 MiB pages move the knee 512x")
	}
	for _, s := range []uint8{PageShift4K, PageShift2M} {
		r := knees[cfg{1024, s}] / knees[cfg{512, s}]
		t.Logf("knee ratio 1024 / 512 entries, %d KiB pages: %.2f (want 2)", 1<<(s-10), r)
		require.InDelta(t, 0, math.Log2(r/2), 0.5, "doubling the cache moves the knee 2x")
	}
}
