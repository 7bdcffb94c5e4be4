package mtt

import "math/rand/v2"

// policy chooses a victim way in a full set. LRU keeps a recency stamp per
// way (true LRU: the way with the oldest stamp goes); random draws a way from
// the cache's own seeded stream, which needs no per-way state and no update
// on hits (the cheaper policy).
type policy interface {
	touch(c *Cache, i int)         // a hit or a fill of slot i
	victim(c *Cache, base int) int // the slot to evict from the full set starting at base
}

type lruPolicy struct{}

func (lruPolicy) touch(c *Cache, i int) {
	c.clock++
	c.stamp[i] = c.clock
}

func (lruPolicy) victim(c *Cache, base int) int {
	v, oldest := base, c.stamp[base]
	for w := 1; w < c.ways; w++ {
		if s := c.stamp[base+w]; s < oldest {
			v, oldest = base+w, s
		}
	}
	return v
}

type randomPolicy struct{ rng *rand.Rand }

func (randomPolicy) touch(*Cache, int) {}

func (p randomPolicy) victim(c *Cache, base int) int {
	return base + p.rng.IntN(c.ways)
}
