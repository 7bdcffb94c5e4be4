package sim

import (
	"math"
	"math/bits"
)

// Key is an event's place in the engine's order: its time, then its
// priority and sequence number (priority<<seqBits|sequence).
type Key struct {
	at  Tick
	ord uint64
}

// qkey is the queue's name for Key.
type qkey = Key

// At is the key's time.
func (k Key) At() Tick { return k.at }

// Before reports whether k comes before o in the engine's order.
func (k Key) Before(o Key) bool { return before(&k, &o) == 1 }

// payload is what an event carries besides its key.
type payload struct {
	h   Handler
	arg uint64
}

// sentinel sorts after every real key (a real ord never has all bits set:
// the engine stops before the sequence reaches 2^56-1 with priority 255).
var sentinel = qkey{at: MaxTick, ord: math.MaxUint64}

// before reports a < b as 0 or 1, without a branch: the borrow of the
// 128-bit subtraction a - b.
func before(a, b *qkey) int {
	_, br := bits.Sub64(a.ord, b.ord, 0)
	_, br = bits.Sub64(uint64(a.at), uint64(b.at), br)
	return int(br)
}

// earlier reports a < b with branches, time first: for a comparison whose
// answer the time most often settles and a branch predicts, fewer
// instructions than before.
func earlier(a, b *qkey) bool { return a.at < b.at || a.at == b.at && a.ord < b.ord }

// nearHeap is an implicit 4-ary min-heap of events, keys and payloads in
// parallel arrays so that the comparisons read only the 16-byte keys: four
// children span 64 bytes. Four children are compared without branches (two
// pairs, then the pair winners), so a level costs four loads and one loop
// test.
//
// Two details keep it cheap:
//   - keys[n:] holds at least heapPad sentinels, so a node's four child
//     slots can always be read and the last level needs no bounds logic;
//   - pop only takes the root and leaves a hole there. A push that follows
//     (the usual pattern: a handler schedules its next event) drops the new
//     event into the hole and sifts it down, one sift instead of two and a
//     short one when the new event is near; a pop or peek with no push in
//     between settles the hole with the last entry.
type nearHeap struct {
	keys []qkey
	vals []payload // vals[i] goes with keys[i]; same length
	n    int       // entries in keys[:n], the hole included
	hole bool      // entry 0 was taken and is not live
}

const heapPad = 4 // sentinel slots kept after keys[:n]

func (p *nearHeap) init() {
	p.keys = make([]qkey, heapPad, 64)
	p.vals = make([]payload, heapPad, 64)
	for i := range p.keys {
		p.keys[i] = sentinel
	}
}

// append adds an event at the end and sifts it up.
func (p *nearHeap) append(k qkey, v payload) {
	i := p.n
	p.n++
	p.pad()
	p.up(i, k, v)
}

// take removes the root and returns it, leaving a hole. The heap must have a
// live root (settle first).
func (p *nearHeap) take() event {
	p.hole = true
	return event{at: p.keys[0].at, ord: p.keys[0].ord, h: p.vals[0].h, arg: p.vals[0].arg}
}

// settle fills a hole left by take with the last entry.
func (p *nearHeap) settle() {
	if p.hole {
		p.fill()
	}
}

func (p *nearHeap) fill() {
	p.hole = false
	p.n--
	n := p.n
	k, v := p.keys[n], p.vals[n]
	p.keys[n], p.vals[n] = sentinel, payload{}
	if n > 0 {
		p.down(0, k, v)
	}
}

// add appends an event without restoring the heap order; heapify follows.
// The heap must have no hole.
func (p *nearHeap) add(ev *event) {
	k, v := qkey{ev.at, ev.ord}, payload{ev.h, ev.arg}
	if p.n < len(p.keys) {
		p.keys[p.n], p.vals[p.n] = k, v
	} else {
		p.keys, p.vals = append(p.keys, k), append(p.vals, v)
	}
	p.n++
}

// heapify restores the heap order and the sentinel padding after add.
func (p *nearHeap) heapify() {
	p.pad()
	for i := (p.n - 2) / 4; i >= 0; i-- {
		p.down(i, p.keys[i], p.vals[i])
	}
}

// pad keeps heapPad sentinels after the entries.
func (p *nearHeap) pad() {
	for len(p.keys) < p.n+heapPad {
		p.keys, p.vals = append(p.keys, sentinel), append(p.vals, payload{})
	}
}

// drain appends every live event to dst, in no order, and empties the heap.
func (p *nearHeap) drain(dst []event) []event {
	p.settle()
	for i := range p.keys[:p.n] {
		dst = append(dst, event{at: p.keys[i].at, ord: p.keys[i].ord, h: p.vals[i].h, arg: p.vals[i].arg})
		p.keys[i], p.vals[i] = sentinel, payload{}
	}
	p.n = 0
	return dst
}

func (p *nearHeap) up(i int, k qkey, v payload) {
	keys, vals := p.keys, p.vals
	for i > 0 {
		par := (i - 1) / 4
		if before(&k, &keys[par]) == 0 {
			break
		}
		keys[i], vals[i] = keys[par], vals[par]
		i = par
	}
	keys[i], vals[i] = k, v
}

// down places (k, v) at node i or below, moving smaller children up.
func (p *nearHeap) down(i int, k qkey, v payload) {
	keys, vals, n := p.keys, p.vals, p.n
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		ch := keys[c : c+4 : c+4]
		a := before(&ch[1], &ch[0])
		b := 2 + before(&ch[3], &ch[2])
		a ^= (a ^ b) & -before(&ch[b], &ch[a])
		if before(&ch[a], &k) == 0 {
			break
		}
		keys[i], vals[i] = ch[a], vals[c+a]
		i = c + a
	}
	keys[i], vals[i] = k, v
}
