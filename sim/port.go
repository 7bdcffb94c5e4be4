package sim

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// Port is a bounded, typed, one-way channel between two components with a
// fixed latency. Its capacity is a credit count: Send takes a credit, Pop
// returns it. A message sent at t is visible to Peek/Pop no earlier than
// t+latency. The receiver is woken when a message becomes visible, and a
// sender refused by a full port is woken when space frees (the retry idea,
// without callbacks).
type Port[T any] struct {
	// The fields Send, Drop, PeekAt and CanSend use come first, in one
	// cache line with the slots' address.
	buf     []portSlot[T] // a power of two of slots, at least capacity
	mask    int           // len(buf)-1
	head    int
	n       int
	cap     int // capacity in messages (credits)
	latency Tick
	eng     *Engine
	arrive  *TickDriver // dst, when it is a tick driver and the latency not 0
	// Statistics.
	Sent     uint64
	maxDepth int
	blocked  bool // a sender found the port full since the last Pop
	src      Waker
	dst      Waker
	dstWake  Handler // wakes dst; built once in Connect so Send allocates nothing
	Refused  uint64  // CanSend returned false
	name     string

	// 192 B in all: the allocator places records of that size on 64 B
	// boundaries, so the first 64 B above are one cache line.
	_ [16]byte
}

// A port is 192 B whatever it carries (its comment): a field added must
// keep it so, or say otherwise.
var (
	_ = [unsafe.Sizeof(Port[struct{}]{}) - 192]struct{}{}
	_ = [192 - unsafe.Sizeof(Port[struct{}]{})]struct{}{}
)

// portSlot is one message and when it becomes visible. A free slot is
// visible at MaxTick, so that the head slot of an empty port is never
// visible: Peek needs no test for an empty port.
type portSlot[T any] struct {
	msg     T
	visible Tick
}

// NewPort returns a port with the given capacity (at least 1) and latency.
func NewPort[T any](name string, eng *Engine, capacity int, latency Tick) (*Port[T], error) {
	if capacity < 1 {
		return nil, fmt.Errorf("sim: port %q: capacity %d must be at least 1", name, capacity)
	}
	buf := make([]portSlot[T], 1<<bits.Len(uint(capacity-1)))
	for i := range buf {
		buf[i].visible = MaxTick
	}
	return &Port[T]{name: name, eng: eng, latency: latency, buf: buf, mask: len(buf) - 1, cap: capacity}, nil
}

// MustNewPort is NewPort for wiring code whose arguments are constants.
func MustNewPort[T any](name string, eng *Engine, capacity int, latency Tick) *Port[T] {
	p, err := NewPort[T](name, eng, capacity, latency)
	if err != nil {
		panic(err)
	}
	return p
}

// Connect sets who is woken on arrival (dst) and on freed space (src).
// Either may be nil.
func (p *Port[T]) Connect(src, dst Waker) {
	p.src, p.dst = src, dst
	p.dstWake, p.arrive = nil, nil
	drv, _ := dst.(*TickDriver)
	if drv != nil && p.latency != 0 {
		p.arrive = drv
	}
	if dst != nil && drv == nil {
		p.dstWake = &portWake{dst}
	}
}

// Name is the port's hierarchical name.
func (p *Port[T]) Name() string { return p.name }

// Len is the number of messages held, visible or in flight.
func (p *Port[T]) Len() int { return p.n }

// Cap is the port's capacity in messages (its credits).
func (p *Port[T]) Cap() int { return p.cap }

// MaxDepth is the largest number of messages held at once.
func (p *Port[T]) MaxDepth() int { return p.maxDepth }

// CanSend reports whether a credit is available. A false answer registers the
// caller for a wake-up when space frees.
func (p *Port[T]) CanSend() bool {
	if p.n < p.cap {
		return true
	}
	p.blocked = true
	p.Refused++
	return false
}

// WatchSpace registers the sender for a wake-up when space frees, as a
// refused CanSend does, without counting a refusal.
func (p *Port[T]) WatchSpace() { p.blocked = true }

// Send enqueues m. It returns an error if no credit is available (the caller
// should have asked CanSend); the message is then not sent.
func (p *Port[T]) Send(m T) error {
	if p.n == p.cap {
		return p.refuse()
	}
	vis := p.eng.now + p.latency // the store to buf makes a second sum reload latency
	p.buf[(p.head+p.n)&p.mask] = portSlot[T]{msg: m, visible: vis}
	p.n++
	p.Sent++
	p.maxDepth = max(p.maxDepth, p.n)
	switch {
	case p.arrive != nil:
		p.arrive.arrival(vis)
	case p.dst == nil:
	case p.latency == 0:
		p.dst.Wake()
	default:
		p.eng.push(vis, PrioDeliver, p.dstWake, 0)
	}
	return nil
}

// refuse is a Send without credit: the sender is registered for space
// and counted as refused.
func (p *Port[T]) refuse() error {
	p.blocked = true
	p.Refused++
	return fmt.Errorf("sim: port %q: send without credit (capacity %d)", p.name, p.cap)
}

// portWake wakes a component that is not a tick driver when a delayed
// message becomes visible (a tick driver's arrivals are its own).
type portWake struct{ w Waker }

func (pw *portWake) Handle(Tick, uint64) { pw.w.Wake() }

// Peek returns the oldest message if it is visible now.
func (p *Port[T]) Peek() (T, bool) { return p.PeekAt(p.eng.now) }

// PeekAt is Peek for a receiver that knows the current time now (a
// component's tick): it need not load the engine's.
func (p *Port[T]) PeekAt(now Tick) (T, bool) {
	var zero T
	if Invariants && now != p.eng.now {
		panic(fmt.Sprintf("sim: invariant: port %q: PeekAt(%v) at %v", p.name, now, p.eng.now))
	}
	h := &p.buf[p.head] // an empty port's head slot is free: visible at MaxTick
	if h.visible > now {
		return zero, false
	}
	return h.msg, true
}

// Pop removes and returns the oldest visible message, returning its credit.
func (p *Port[T]) Pop() (T, bool) {
	m, ok := p.Peek()
	if ok {
		p.Drop()
	}
	return m, ok
}

// Drop removes the oldest message, which Peek has just returned, returning
// its credit: Pop without looking at the message again. The message stays
// in its slot until a Send overwrites it: a port holds no more than its
// capacity of them, so it keeps nothing alive without bound.
func (p *Port[T]) Drop() {
	if p.n == 0 {
		panic(emptyDrop(p.name))
	}
	p.buf[p.head].visible = MaxTick // free
	p.head = (p.head + 1) & p.mask
	p.n--
	if p.blocked && p.src != nil {
		p.blocked = false
		p.src.Wake()
	}
}

// emptyDrop is the panic of a Drop on an empty port: a wiring error.
type emptyDrop string

func (e emptyDrop) Error() string {
	return fmt.Sprintf("sim: port %q: Drop on an empty port", string(e))
}

// NextVisible is when the oldest message becomes visible (MaxTick if empty).
func (p *Port[T]) NextVisible() Tick {
	return p.buf[p.head].visible // MaxTick when empty: the head slot is free
}
