package mtt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// refLRU is the reference model: per set, a map of present lines and a list
// ordered from least to most recently used.
type refLRU struct {
	sets, ways int
	present    []map[uint64]bool
	order      [][]uint64
}

func newRefLRU(sets, ways int) *refLRU {
	r := &refLRU{sets: sets, ways: ways, present: make([]map[uint64]bool, sets), order: make([][]uint64, sets)}
	for i := range r.present {
		r.present[i] = map[uint64]bool{}
	}
	return r
}

func (r *refLRU) moveToBack(s int, line uint64) {
	o := r.order[s]
	for i, l := range o {
		if l == line {
			copy(o[i:], o[i+1:])
			o[len(o)-1] = line
			return
		}
	}
	panic("line not in order list")
}

// access looks line up and fills it on a miss; it returns hit and the evicted line.
func (r *refLRU) access(line uint64) (hit bool, victim uint64, evicted bool) {
	s := int(line % uint64(r.sets))
	if r.present[s][line] {
		r.moveToBack(s, line)
		return true, 0, false
	}
	if len(r.order[s]) == r.ways {
		victim, evicted = r.order[s][0], true
		r.order[s] = r.order[s][1:]
		delete(r.present[s], victim)
	}
	r.order[s] = append(r.order[s], line)
	r.present[s][line] = true
	return false, victim, evicted
}

func (r *refLRU) invalidate(line uint64) bool {
	s := int(line % uint64(r.sets))
	if !r.present[s][line] {
		return false
	}
	delete(r.present[s], line)
	o := r.order[s]
	for i, l := range o {
		if l == line {
			r.order[s] = append(o[:i], o[i+1:]...)
			break
		}
	}
	return true
}

// TestCacheMatchesReferenceLRU drives the set-associative LRU cache and the
// reference model with the same seeded random address streams (as a
// translator uses it: Lookup, then Insert on a miss, with occasional
// invalidations) and requires them to agree hit for hit and eviction for
// eviction.
func TestCacheMatchesReferenceLRU(t *testing.T) {
	seed := testSeed(t, 20260401)
	cases := []struct {
		sets, ways int
		lineBytes  uint64
		spanBytes  uint64 // address range of the stream
	}{
		{1, 1, 64, 1 << 12},
		{1, 8, 64, 1 << 12},    // fully associative
		{16, 4, 64, 1 << 16},   // MTT-like
		{128, 4, 64, 1 << 18},  // default MTT cache geometry
		{32, 2, 32, 1 << 14},   // MPT-like, 32 B lines
		{7, 3, 128, 1 << 14},   // odd set count, long lines
		{64, 16, 64, 1 << 20},  // high associativity
		{256, 1, 64, 1 << 16},  // direct mapped
		{4, 4, 4096, 1 << 20},  // huge lines
		{512, 8, 64, 64 << 20}, // mostly misses
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%dx%d_line%d_span%d", c.sets, c.ways, c.lineBytes, c.spanBytes), func(t *testing.T) {
			rng := sim.Stream(seed, fmt.Sprintf("case%d", ci))
			cache, err := NewCache(c.sets, c.ways, PolicyLRU, nil)
			require.NoError(t, err)
			ref := newRefLRU(c.sets, c.ways)
			hits := 0
			const n = 20000
			for i := 0; i < n; i++ {
				var addr uint64
				switch rng.IntN(4) {
				case 0: // hot region: reuse
					addr = rng.Uint64N(c.lineBytes * uint64(c.sets*c.ways) / 2)
				default:
					addr = rng.Uint64N(c.spanBytes)
				}
				line := addr / c.lineBytes
				if rng.IntN(50) == 0 {
					require.Equal(t, ref.invalidate(line), cache.Invalidate(line), "op %d: invalidate line %d", i, line)
					continue
				}
				wantHit, wantVictim, wantEv := ref.access(line)
				gotHit := cache.Lookup(line)
				require.Equal(t, wantHit, gotHit, "op %d: line %d", i, line)
				if !gotHit {
					v, ev := cache.Insert(line)
					require.Equal(t, wantEv, ev, "op %d: eviction on filling line %d", i, line)
					if ev {
						require.Equal(t, wantVictim, v, "op %d: victim on filling line %d", i, line)
					}
				} else {
					hits++
				}
			}
			t.Logf("%d accesses, %d hits (%.1f %%)", n, hits, 100*float64(hits)/n)
		})
	}
}

func TestCacheRandomPolicyReplaysFromSeed(t *testing.T) {
	seed := testSeed(t, 7)
	run := func() []bool {
		c, err := NewCache(8, 4, PolicyRandom, sim.Stream(seed, "NIC.MTTCache"))
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 1))
		out := make([]bool, 5000)
		for i := range out {
			line := rng.Uint64N(200)
			out[i] = c.Lookup(line)
			if !out[i] {
				c.Insert(line)
			}
		}
		return out
	}
	a, b := run(), run()
	require.Equal(t, a, b)
	c, err := NewCache(8, 4, PolicyRandom, sim.Stream(seed, "x"))
	require.NoError(t, err)
	for i := uint64(0); i < 1000; i++ {
		c.Insert(i)
		require.LessOrEqual(t, c.Len(), 32)
	}
	require.Equal(t, 32, c.Len())
}

func BenchmarkCacheLookupHit(b *testing.B) {
	c, err := NewCache(128, 4, PolicyLRU, nil)
	require.NoError(b, err)
	for l := uint64(0); l < 512; l++ {
		c.Insert(l)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !c.Lookup(uint64(i) & 511) {
			b.Fatal("miss")
		}
	}
}
