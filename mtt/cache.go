package mtt

import (
	"fmt"
	"math/rand/v2"
)

// Cache is the set-associative core of an on-NIC cache: tags and replacement
// state only, no timing and no data (the data lives in the table images; see
// doc.go). Keys are line numbers (table byte offset / line size). A line maps
// to set line % sets.
type Cache struct {
	sets, ways int
	tags       []uint64 // line+1; 0 = empty
	stamp      []uint64 // LRU recency
	clock      uint64
	pol        policy
}

// NewCache builds an empty cache of sets x ways lines with the named policy
// ("lru" or "random"; random draws from rng, which must then be non-nil).
func NewCache(sets, ways int, policyName string, rng *rand.Rand) (*Cache, error) {
	if sets < 1 || ways < 1 {
		return nil, fmt.Errorf("mtt: cache of %d sets x %d ways: both must be >= 1", sets, ways)
	}
	c := &Cache{sets: sets, ways: ways, tags: make([]uint64, sets*ways)}
	switch policyName {
	case PolicyLRU:
		c.stamp = make([]uint64, sets*ways)
		c.pol = lruPolicy{}
	case PolicyRandom:
		if rng == nil {
			return nil, fmt.Errorf("mtt: random replacement needs a random stream")
		}
		c.pol = randomPolicy{rng: rng}
	default:
		return nil, fmt.Errorf("mtt: replacement policy %q, want %q or %q", policyName, PolicyLRU, PolicyRandom)
	}
	return c, nil
}

// Sets is the number of sets.
func (c *Cache) Sets() int { return c.sets }

// Ways is the associativity.
func (c *Cache) Ways() int { return c.ways }

func (c *Cache) find(line uint64) (base, slot int) {
	base = int(line%uint64(c.sets)) * c.ways
	tag := line + 1
	for w := 0; w < c.ways; w++ {
		if c.tags[base+w] == tag {
			return base, base + w
		}
	}
	return base, -1
}

// Lookup reports whether line is cached and, on a hit, marks it most
// recently used. A miss changes nothing.
func (c *Cache) Lookup(line uint64) bool {
	_, i := c.find(line)
	if i < 0 {
		return false
	}
	c.pol.touch(c, i)
	return true
}

// Contains reports whether line is cached without touching recency.
func (c *Cache) Contains(line uint64) bool {
	_, i := c.find(line)
	return i >= 0
}

// Insert fills line (most recently used). If the set is full, a victim chosen
// by the policy is evicted and returned. Inserting a cached line only touches it.
func (c *Cache) Insert(line uint64) (victim uint64, evicted bool) {
	base, i := c.find(line)
	if i >= 0 {
		c.pol.touch(c, i)
		return 0, false
	}
	i = -1
	for w := 0; w < c.ways; w++ {
		if c.tags[base+w] == 0 {
			i = base + w
			break
		}
	}
	if i < 0 {
		i = c.pol.victim(c, base)
		victim, evicted = c.tags[i]-1, true
	}
	c.tags[i] = line + 1
	c.pol.touch(c, i)
	return victim, evicted
}

// Invalidate drops line and reports whether it was cached.
func (c *Cache) Invalidate(line uint64) bool {
	_, i := c.find(line)
	if i < 0 {
		return false
	}
	c.tags[i] = 0
	if c.stamp != nil {
		c.stamp[i] = 0
	}
	return true
}

// Len is the number of valid lines (O(lines); for tests and reports).
func (c *Cache) Len() int {
	n := 0
	for _, t := range c.tags {
		if t != 0 {
			n++
		}
	}
	return n
}
