package sim

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// nearRing is the queue's small mode: a timing wheel of ringSlots slots of
// 2^ringShift ps (about a nanosecond) covering the next microseconds, with
// the rare event beyond it in a heap (far). A clocked model keeps a few
// dozen events pending, almost all within a microsecond and most among the
// earliest few, so a new event is appended to its slot's short list in
// (time, priority, sequence) order - at the tail when, as usual, its
// sequence number is the largest of its time - and the next event is the
// head of the first slot whose bit is set in the occupancy bitmap. Neither
// depends on how many events are pending.
//
// The ring does not count its events: the queue that holds it does, and
// says how many there are where the ring needs to know: to drain them, and
// to tell an empty ring, all of whose events are in far, without reading
// its bitmap (settle).
//
// Invariant: every event of absolute slot s with cur <= s < cur+ringSlots
// is in ring position s mod ringSlots; every later one is in far; none is
// earlier than cur (events are never scheduled in the past).
type nearRing struct {
	// cur is the absolute slot of the window's start, at or before the
	// earliest event's: settle and advance move it there, and dispatch
	// leaves it where it is while it takes events later in its bitmap
	// word.
	cur   uint64
	free  uint8   // the first node not in use, the rest linked through next; 0: none
	epoch uint32  // changes when node numbers stop naming the events they named
	far   []event // a binary heap of the events beyond the window
	bits  [ringSlots / 64]uint64
	// Each position's list: its first and last node, in two arrays, so
	// that either is one indexed load away. A head of 0 is an empty list,
	// whose tail is stale: taking a list's last event clears only its head
	// (unlinkHead).
	head, tail [ringSlots]uint8
	nodes      [ringNodes]ringNode // nodes[0] is unused: 0 ends a list
}

const (
	ringShift = 10   // slot width 1024 ps
	ringSlots = 4096 // window about 4.2 µs
	// ringNodes is the size of the node pool: one node per node number
	// (a uint8), so that a node number indexes the pool with neither a
	// bounds check nor a mask. Ring mode ends above ringOn events, so it
	// uses at most ringOn+1 nodes (and node 0, unused), and the free list,
	// last in first out, never hands out the rest.
	ringNodes = 256

	// ringWalkMax is the longest walk along a slot's list that a crowded
	// ring may take without leaving ring mode: a new event linked further
	// than this from its list's head, with more than ringCrowd events
	// pending, sends them all to heap mode (eventQueue.crowded).
	ringWalkMax = 8
)

// The ring's node pool must hold every event of ring mode.
var _ = [ringNodes - ringOn - 2]struct{}{}

// ringNode is one event of the ring. It is padded to 64 bytes: a node
// number becomes its offset with a shift, and no node straddles two cache
// lines.
type ringNode struct {
	k    qkey
	v    payload
	next uint8
	_    [64 - 41]byte
}

var _ = [unsafe.Sizeof(ringNode{}) - 64]struct{}{}

// init puts every node but node 0 on the free list.
func (r *nearRing) init() {
	for i := 1; i < ringNodes-1; i++ {
		r.nodes[i].next = uint8(i + 1)
	}
	r.free = 1
}

// node is node id's storage.
func (r *nearRing) node(id uint8) *ringNode { return &r.nodes[id] }

// release puts node id, out of every list, back into the pool; it keeps
// its key and payload until reused.
func (r *nearRing) release(id uint8) {
	r.node(id).next = r.free
	r.free = id
}

// fill takes a node out of the pool, which must have one, and fills it
// with an event that is not in any list yet.
func (r *nearRing) fill(k qkey, h Handler, arg uint64) uint8 {
	id := r.free
	nd := &r.nodes[id]
	r.free = nd.next
	nd.k, nd.v, nd.next = k, payload{h, arg}, 0
	return id
}

// append puts node id at the tail of the list of absolute slot s, whose
// events all come before it.
func (r *nearRing) append(s uint64, id uint8) {
	p := s & (ringSlots - 1)
	if r.head[p] != 0 {
		r.nodes[r.tail[p]].next = id
	} else {
		r.head[p] = id
		r.bits[p>>6] |= 1 << (p & 63)
	}
	r.tail[p] = id
}

// insert adds an event and returns its node (0: in far) and whether it
// was linked into its slot's list further than ringWalkMax from the head.
// Engine.schedule writes its usual case out.
func (r *nearRing) insert(k qkey, h Handler, arg uint64) (uint32, bool) {
	s := uint64(k.at) >> ringShift
	if s-r.cur >= ringSlots || r.free == 0 {
		return r.insertOutside(k, payload{h, arg}, s)
	}
	id := r.fill(k, h, arg)
	long := false
	if p := s & (ringSlots - 1); r.head[p] != 0 && before(&k, &r.nodes[r.tail[p]].k) == 1 {
		long = r.link(s, id)
	} else {
		r.append(s, id)
	}
	return uint32(id), long
}

// insertOutside adds an event of absolute slot s outside the window: to
// far when it is later, into the ring after a rewind when it is earlier.
func (r *nearRing) insertOutside(k qkey, v payload, s uint64) (uint32, bool) {
	if r.free == 0 {
		panic("sim: ring: node pool exhausted") // unreachable: ring mode ends above ringOn events
	}
	if s >= r.cur {
		r.farPush(event{at: k.at, ord: k.ord, h: v.h, arg: v.arg})
		return 0, false
	}
	r.rewind(s)
	return r.insert(k, v.h, v.arg)
}

// remove takes node id, an event at time at not yet dispatched, out of the
// ring.
func (r *nearRing) remove(n uint32, at Tick) {
	id := uint8(n)
	p := (uint64(at) >> ringShift) & (ringSlots - 1)
	next := r.node(id).next
	if h := r.head[p]; h == id {
		if next == 0 {
			r.head[p], r.tail[p] = 0, 0
			r.bits[p>>6] &^= 1 << (p & 63)
		} else {
			r.head[p] = next
		}
	} else {
		for r.node(h).next != id {
			h = r.node(h).next
		}
		r.node(h).next = next
		if next == 0 {
			r.tail[p] = h
		}
	}
	r.node(id).v = payload{}
	r.release(id)
}

// link puts node id in order into the non-empty list of position p, not
// after its tail, and reports whether it walked further than ringWalkMax
// (linkAfter).
func (r *nearRing) link(p uint64, id uint8) bool {
	p &= ringSlots - 1
	nd := r.node(id)
	h := r.head[p]
	if before(&nd.k, &r.node(h).k) == 1 {
		nd.next = h
		r.head[p] = id
		return false
	}
	return r.linkAfter(h, id)
}

// linkAfter puts node id in order into the list that holds node h, after
// h and not after the list's tail. It reports whether it walked past more
// than ringWalkMax nodes: many events share the slot, and a heap would
// place them for less.
func (r *nearRing) linkAfter(h, id uint8) bool {
	nd := r.node(id)
	k := &nd.k
	walked := 0
	for before(&r.node(r.node(h).next).k, k) == 1 {
		h = r.node(h).next
		walked++
	}
	nd.next = r.node(h).next
	r.node(h).next = id
	return walked > ringWalkMax
}

// next is the absolute slot of the earliest event in the bitmap words
// after the one of absolute slot c (mod the bitmap's length), in ring
// order, and whether the ring holds one; n is the set's events, in the
// ring and in far.
func (r *nearRing) next(c uint64, n int) (uint64, bool) {
	if n == len(r.far) {
		return 0, false
	}
	w := c >> 6
	for i := uint64(1); i <= ringSlots/64; i++ {
		if b := r.bits[(w+i)&(ringSlots/64-1)]; b != 0 {
			return (w+i)<<6 + uint64(bits.TrailingZeros64(b)), true
		}
	}
	if Invariants {
		panic(fmt.Sprintf("sim: invariant: the ring holds none of %d events, far %d", n, len(r.far)))
	}
	return 0, false
}

// settle makes the window start at the earliest event: it moves cur up to
// its slot, or, with the ring empty, to the first far event's slot, pulling
// in the far events the moved window covers. It returns the ring position
// of the earliest event. n is the number of events the set holds, in the
// ring and in far; it must not be 0.
func (r *nearRing) settle(n int) uint64 {
	if p := r.cur & (ringSlots - 1); r.head[p] != 0 {
		return p // the usual case: more events on the current slot
	}
	return r.advance(n)
}

// advance is settle when the current slot is empty. When every one of the
// n events is in far (a model idle until a distant event: a firmware
// command's completion) it does not look through the ring's bitmap words,
// which would find all 64 empty.
func (r *nearRing) advance(n int) uint64 {
	// The earliest event's slot: usually in the bitmap word of the
	// current slot, else in a later one (next).
	c := r.cur
	if b := r.bits[c>>6&(ringSlots/64-1)] >> (c & 63); b != 0 {
		c += uint64(bits.TrailingZeros64(b))
	} else if s, ok := r.next(c, n); ok {
		c = s
	} else { // the ring is empty: the window moves to the first far event
		c = uint64(r.far[0].at) >> ringShift
	}
	r.cur = c
	if len(r.far) > 0 {
		r.pull()
	}
	return c & (ringSlots - 1)
}

// rewind moves the window's start back to slot s (an event earlier than
// the window: time moved on to a RunUntil bound short of the window's
// start, and an event was scheduled there); the events the window no
// longer covers go to far.
func (r *nearRing) rewind(s uint64) {
	r.epoch++
	d := r.cur - s
	for a := r.cur + ringSlots - min(d, ringSlots); a < r.cur+ringSlots; a++ {
		p := a & (ringSlots - 1)
		if r.bits[p>>6]>>(p&63) == 0 {
			a |= 63 // nothing more in this bitmap word
			continue
		}
		for id := r.head[p]; id != 0; {
			nd := r.node(id)
			r.farPush(event{at: nd.k.at, ord: nd.k.ord, h: nd.v.h, arg: nd.v.arg})
			next := nd.next
			nd.v = payload{}
			r.release(id)
			id = next
		}
		r.head[p], r.tail[p] = 0, 0
		r.bits[p>>6] &^= 1 << (p & 63)
	}
	r.cur = s
}

// pull moves the far events the window now covers into the ring.
func (r *nearRing) pull() {
	for len(r.far) > 0 && uint64(r.far[0].at)>>ringShift-r.cur < ringSlots {
		ev := r.farPop()
		r.insert(qkey{ev.at, ev.ord}, ev.h, ev.arg)
	}
}

// peek is the next event's key; the set holds n events, at least one.
func (r *nearRing) peek(n int) qkey {
	p := r.settle(n)
	return r.node(r.head[p]).k
}

// unlinkHead takes node id, the first of position p, out of its list and
// puts it back into the pool; it keeps its contents until reused. Whether
// the list empties is data no branch predicts, so it is computed rather
// than tested: last is 1 when it does, and then clears the position's bit
// (set, as the list held id). The tail is left stale.
func (r *nearRing) unlinkHead(p uint64, id uint8) {
	p &= ringSlots - 1
	nd := &r.nodes[id]
	next := nd.next
	last := (uint64(next) - 1) >> 63
	r.head[p] = next
	r.bits[p>>6] ^= last << (p & 63)
	nd.next = r.free
	r.free = id
}

// take removes and returns the next event; the set holds n events, at
// least one.
func (r *nearRing) take(n int) event {
	p := r.settle(n)
	id := r.head[p]
	nd := r.node(id)
	r.unlinkHead(p, id)
	return event{at: nd.k.at, ord: nd.k.ord, h: nd.v.h, arg: nd.v.arg}
}

// drain appends the set's n events to dst, in order, and empties it.
func (r *nearRing) drain(dst []event, n int) []event {
	r.epoch++
	for i := range n {
		dst = append(dst, r.take(n-i))
	}
	return dst
}

// load fills the empty set with evs, starting the window at the earliest.
func (r *nearRing) load(evs []event) {
	if len(evs) == 0 {
		return
	}
	lo := evs[0].at
	for i := range evs {
		lo = min(lo, evs[i].at)
	}
	r.cur = uint64(lo) >> ringShift
	for i := range evs {
		r.insert(qkey{evs[i].at, evs[i].ord}, evs[i].h, evs[i].arg)
	}
}
func (r *nearRing) farPush(ev event) {
	r.far = append(r.far, ev)
	h := r.far
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !ev.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

func (r *nearRing) farPop() event {
	h := r.far
	top := h[0]
	last := len(h) - 1
	x := h[last]
	h[last] = event{}
	h = h[:last]
	r.far = h
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].less(&h[c]) {
			c++
		}
		if !h[c].less(&x) {
			break
		}
		h[i] = h[c]
		i = c
	}
	if len(h) > 0 {
		h[i] = x
	}
	return top
}
