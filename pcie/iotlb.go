package pcie

import "github.com/nicsim/nicsim/sim"

// iotlb is a fully associative IOTLB with LRU replacement: page numbers,
// each with the time its translation is (or will be) usable. It holds at
// most cap entries in fixed arrays and an open-addressing index, so a
// lookup or an insert allocates nothing.
type iotlb struct {
	page       []uint64
	validAt    []sim.Tick
	prev, next []int32 // recency list over entries; head is the most recent
	head, tail int32
	n          int32
	index      []int32 // entry+1 per slot, 0 empty; linear probing
	mask       uint64
	bits       uint
}

func newIOTLB(entries int) *iotlb {
	bits := uint(1)
	for 1<<bits < 2*entries {
		bits++
	}
	return &iotlb{page: make([]uint64, entries), validAt: make([]sim.Tick, entries),
		prev: make([]int32, entries), next: make([]int32, entries), head: -1, tail: -1,
		index: make([]int32, 1<<bits), mask: 1<<bits - 1, bits: bits}
}

func (c *iotlb) slot(page uint64) uint64 { return (page * 0x9e3779b97f4a7c15) >> (64 - c.bits) }

// find returns the index slot holding page, or the empty slot where it
// would go, and whether it was found.
func (c *iotlb) find(page uint64) (uint64, bool) {
	s := c.slot(page)
	for {
		e := c.index[s]
		if e == 0 {
			return s, false
		}
		if c.page[e-1] == page {
			return s, true
		}
		s = (s + 1) & c.mask
	}
}

// lookup returns when page's translation is usable, marking it most
// recently used, or false on a miss.
func (c *iotlb) lookup(page uint64) (sim.Tick, bool) {
	s, ok := c.find(page)
	if !ok {
		return 0, false
	}
	e := c.index[s] - 1
	c.unlink(e)
	c.pushFront(e)
	return c.validAt[e], true
}

// insert adds page (not present), usable from validAt, evicting the least
// recently used entry when full.
func (c *iotlb) insert(page uint64, validAt sim.Tick) {
	var e int32
	if int(c.n) < len(c.page) {
		e = c.n
		c.n++
	} else {
		e = c.tail
		c.unlink(e)
		c.remove(c.page[e])
	}
	c.page[e], c.validAt[e] = page, validAt
	s, _ := c.find(page)
	c.index[s] = e + 1
	c.pushFront(e)
}

// remove deletes page from the index with backward-shift deletion, which
// keeps every probe sequence unbroken.
func (c *iotlb) remove(page uint64) {
	s, ok := c.find(page)
	if !ok {
		return
	}
	for {
		c.index[s] = 0
		j := s
		for {
			j = (j + 1) & c.mask
			e := c.index[j]
			if e == 0 {
				return
			}
			home := c.slot(c.page[e-1])
			// Move e back into s unless its home lies cyclically in (s, j].
			if (j > s && (home <= s || home > j)) || (j < s && home <= s && home > j) {
				c.index[s] = e
				s = j
				break
			}
		}
	}
}

func (c *iotlb) unlink(e int32) {
	p, n := c.prev[e], c.next[e]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
}

func (c *iotlb) pushFront(e int32) {
	c.prev[e], c.next[e] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = e
	}
	c.head = e
	if c.tail < 0 {
		c.tail = e
	}
}
