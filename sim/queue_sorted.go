package sim

import "slices"

// sortedSet is the queue's small mode: every pending event in one array
// sorted latest first, so the next event is the last entry and dispatching
// it is a decrement. A clocked model keeps a few dozen events pending and
// schedules most new events among the earliest few (a stage's next cycle,
// a message one cycle away), so an insertion usually shifts a few entries
// at the end of the array. Only the 16-byte keys and a 4-byte slot index
// move; each payload (handler and argument) stays in its slot of vals from
// push to dispatch.
type sortedSet struct {
	keys []qkey
	idx  []uint32 // idx[i]: the slot of keys[i]'s payload in vals
	vals []payload
	free []uint32 // slots of vals not in use
	n    int
}

// sortedScan is how many entries an insertion compares one by one from
// the end before it binary-searches the rest.
const sortedScan = 8

// insert adds an event in order.
func (s *sortedSet) insert(k qkey, v payload) {
	if s.n == len(s.keys) {
		s.grow(s.n + 1)
	}
	nf := len(s.free) - 1
	sl := s.free[nf]
	s.free = s.free[:nf]
	s.vals[sl] = v
	i := s.n
	s.n++
	keys, idx := s.keys[:i+1], s.idx[:i+1]
	// keys[j] for j >= i are earlier than k; keys[i-1] is the next to test.
	for stop := max(i-sortedScan, 0); i > stop; i-- {
		p := keys[i-1]
		if p.at > k.at || (p.at == k.at && p.ord > k.ord) {
			keys[i], idx[i] = k, sl
			return
		}
		keys[i], idx[i] = p, idx[i-1]
	}
	if i > 0 {
		// The new event is later than the last sortedScan entries: find
		// its place among the earlier ones, latest first.
		lo, hi := 0, i // keys[:lo] are later than k, keys[hi:i] earlier
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if before(&keys[m], &k) == 1 {
				hi = m
			} else {
				lo = m + 1
			}
		}
		copy(keys[lo+1:i+1], keys[lo:i])
		copy(idx[lo+1:i+1], idx[lo:i])
		i = lo
	}
	keys[i], idx[i] = k, sl
}

// grow makes room for at least m events (after warm-up the arrays are
// large enough and nothing allocates).
func (s *sortedSet) grow(m int) {
	old := len(s.keys)
	c := max(2*old, m, 16)
	keys, idx, vals := make([]qkey, c), make([]uint32, c), make([]payload, c)
	copy(keys, s.keys[:s.n])
	copy(idx, s.idx[:s.n])
	copy(vals, s.vals)
	for i := c - 1; i >= old; i-- {
		s.free = append(s.free, uint32(i))
	}
	s.keys, s.idx, s.vals = keys, idx, vals
}

// peek is the next event's key. The set must not be empty.
func (s *sortedSet) peek() qkey { return s.keys[s.n-1] }

// takeLast removes the next event and returns its time and payload. The
// set must not be empty.
func (s *sortedSet) takeLast() (Tick, payload) {
	s.n--
	at, sl := s.keys[s.n].at, s.idx[s.n]
	v := s.vals[sl]
	s.vals[sl] = payload{}
	s.free = append(s.free, sl)
	return at, v
}

// take removes and returns the next event. The set must not be empty.
func (s *sortedSet) take() event {
	ord := s.keys[s.n-1].ord
	at, v := s.takeLast()
	return event{at: at, ord: ord, h: v.h, arg: v.arg}
}

// drain appends every event to dst, in no particular order, and empties
// the set.
func (s *sortedSet) drain(dst []event) []event {
	for s.n > 0 {
		dst = append(dst, s.take())
	}
	return dst
}

// load fills the empty set with evs, which it sorts latest first.
func (s *sortedSet) load(evs []event) {
	slices.SortFunc(evs, func(a, b event) int {
		if b.less(&a) {
			return -1
		}
		return 1
	})
	if len(s.keys) < len(evs) {
		s.grow(len(evs))
	}
	for i := range evs {
		nf := len(s.free) - 1
		sl := s.free[nf]
		s.free = s.free[:nf]
		s.keys[i], s.idx[i], s.vals[sl] = qkey{evs[i].at, evs[i].ord}, sl, payload{evs[i].h, evs[i].arg}
	}
	s.n = len(evs)
}
