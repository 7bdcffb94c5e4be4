package nic

import "github.com/nicsim/nicsim/sim"

// cqEntry is one CQE slot of a CQ ring in host memory. The completion
// engine's writeCQE sets every field of its slot in place, not through a
// literal: a field added here must be set there too (a size check in
// footprint.go says so at build time).
type cqEntry struct {
	res     Result
	qp      *QP
	wrIdx   uint64
	tPost   sim.Tick
	kind    opKind
	recv    bool // a receive completion (does not retire an SQ slot)
	visible bool
}

// CQ is an NDK_CQ: a ring of CQEs in host memory written by the NIC's
// completion engine and polled by the consumer with GetCQResults.
type CQ struct {
	a     *Adapter
	num   uint32
	depth uint32
	addr  uint64
	ring  []cqEntry
	mask  uint64 // depth-1 when depth is a power of two above 1, else 0 (at divides)
	prod  uint64 // CQEs the NIC has started writing
	cons  uint64 // CQEs the consumer has taken
	qps   int    // QPs using this CQ (docs/ndk.md rule 64)
	closer

	// Notification (NdkArmCq) and interrupt moderation.
	armed      bool
	notify     func()
	modCount   uint32
	timerArmed bool
	timerGen   uint64
	msixBusy   bool

	// Polling-consumer hook: h.Handle(now, arg) runs whenever a CQE becomes
	// visible.
	hook    sim.Handler
	hookArg uint64

	compBlocked bool // the completion engine waits for room in this CQ
}

// SetVisibleHook makes the CQ call h.Handle(now, arg) whenever a CQE becomes
// visible in host memory. It models a consumer that spins on the CQ (no
// interrupt, no poll interval); the hook usually calls GetCQResults.
func (c *CQ) SetVisibleHook(h sim.Handler, arg uint64) { c.hook, c.hookArg = h, arg }

// push puts e in the ring's next slot and returns the slot; the caller has
// checked there is room.
func (c *CQ) push(e cqEntry) uint32 {
	slot := c.at(c.prod)
	c.prod++
	c.ring[slot] = e
	return slot
}

// at is the ring slot of the i-th CQE.
func (c *CQ) at(i uint64) uint32 {
	if c.mask != 0 {
		return uint32(i & c.mask)
	}
	return uint32(i % uint64(c.depth))
}

// ringMask is n-1 when n is a power of two above 1, else 0: a ring of n
// slots indexed by a running count then takes the slot with a mask, not a
// division.
func ringMask(n uint32) uint64 {
	if n > 1 && n&(n-1) == 0 {
		return uint64(n - 1)
	}
	return 0
}

// cqeAddr is the host address and size of the CQE in slot.
func (c *CQ) cqeAddr(slot uint32) (addr, bytes uint64) {
	n := uint64(c.a.spec.CQEBytes)
	return c.addr + uint64(slot)*n, n
}

// full reports whether the ring has no room for a CQE.
func (c *CQ) full() bool { return c.prod-c.cons >= uint64(c.depth) }

// Depth is the CQ's depth in CQEs.
func (c *CQ) Depth() uint32 { return c.depth }

// CreateCQ is NdkCreateCq with a depth in CQEs; the ring is placed in host
// memory. STATUS_INVALID_PARAMETER beyond MaxCqDepth. It completes inline
// (the CQ context write is not modelled).
func (a *Adapter) CreateCQ(depth uint32) (Status, *CQ) {
	if depth == 0 || depth > a.spec.MaxCQDepth {
		return StatusInvalidParameter, nil
	}
	if uint32(len(a.cqs)) >= a.spec.CQsMax {
		return StatusInsufficientResources, nil
	}
	cq := &CQ{a: a, num: uint32(len(a.cqs)), depth: depth, ring: make([]cqEntry, depth), mask: ringMask(depth)}
	cq.addr = a.host.alloc(uint64(depth) * uint64(a.spec.CQEBytes))
	a.cqs = append(a.cqs, cq)
	return StatusSuccess, cq
}

// GetCQResults is NdkGetCqResultsEx: up to max NDK_RESULT_EX entries whose
// CQE write has reached host memory, in CQ order (none for a nil CQ). Taking a CQE gives its
// request's SQ slot back, and those of the successful SILENT_SUCCESS
// requests posted before it on the QP (5.7).
func (a *Adapter) GetCQResults(cq *CQ, max int) []Result {
	if max <= 0 || cq == nil {
		return nil
	}
	out := make([]Result, min(max, a.visibleCQEs(cq)))
	return out[:a.PollCQ(cq, out)]
}

// PollCQ is GetCQResults into a caller's buffer: it fills out with up to
// len(out) results and returns how many; it allocates nothing. A nil CQ
// has none.
func (a *Adapter) PollCQ(cq *CQ, out []Result) int {
	if cq == nil {
		return 0
	}
	n := 0
	for n < len(out) && cq.cons < cq.prod {
		e := &cq.ring[cq.at(cq.cons)]
		if !e.visible {
			break
		}
		out[n] = e.res
		n++
		if !e.recv && e.qp.retired < e.wrIdx+1 {
			e.qp.retired = e.wrIdx + 1
		}
		// The slot is free: only a push writes it again, whole.
		e.visible, e.qp = false, nil
		cq.cons++
	}
	if n > 0 && cq.compBlocked {
		cq.compBlocked = false
		a.completion.drv.Wake()
	}
	return n
}

func (a *Adapter) visibleCQEs(cq *CQ) int {
	n := 0
	for i := cq.cons; i < cq.prod && cq.ring[cq.at(i)].visible; i++ {
		n++
	}
	return n
}

// ArmCQ is NdkArmCq: notify is called once, after the next CQE (subject to
// interrupt moderation) has raised an MSI-X interrupt that reached the host.
func (a *Adapter) ArmCQ(cq *CQ, notify func()) Status {
	if cq == nil || cq.closed || notify == nil {
		return StatusInvalidParameter
	}
	cq.armed, cq.notify = true, notify
	if cq.cons < cq.prod && cq.ring[cq.at(cq.cons)].visible {
		a.irq.raise(cq) // CQEs already waiting
	}
	return StatusSuccess
}
