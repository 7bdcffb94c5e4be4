package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// item is what moves between pipeline stages: a work request named by its
// QP and index (the request's fields are in the QP's slot). Small value
// messages, no pointers, no closures.
type item struct {
	qp  uint32
	idx uint64
}

// stageKind selects a stage's work.
type stageKind uint8

const (
	stDoorbell stageKind = iota
	stParse
	stValidate
	stPageList
	stMTTWrite
	stMPTUpdate
	stCacheWrite
	stageKinds
)

var stageNames = [stageKinds]string{"Doorbell", "Parse", "Validate", "PageList", "MTTWrite", "MPTUpdate", "CacheWrite"}

// accept outcomes.
type acceptResult uint8

const (
	acceptSync  acceptResult = iota // done after the stage latency
	acceptAsync                     // waits for an external completion (DMA), then the latency
	acceptStall                     // cannot start now; the blocking resource wakes the stage
)

type inflight struct {
	m       item
	readyAt sim.Tick
	start   sim.Tick
	waiting bool
}

// stage is one pipeline stage: a sim.Ticker on the NIC clock with a bounded
// input port, a latency and a throughput in cycles, and a bounded set of
// items in flight that leave in order. Ports between stages have a latency
// of one cycle, so an item moves at most one stage per cycle; an item
// accepted at cycle c leaves at c+LatencyCycles-1 and is visible to the next
// stage at c+LatencyCycles.
type stage struct {
	a          *Adapter
	kind       stageKind
	eng        *engine // nil for the doorbell stage
	name       string
	in         *sim.Port[item]
	out        *sim.Port[item] // nil: the stage's sink consumes items
	drv        *sim.TickDriver
	period     sim.Tick
	latency    sim.Tick // LatencyCycles-1 cycles: the port adds the last one
	ipc        int
	interval   sim.Tick
	fl         []inflight
	head, n    int
	waitingN   int // async items outstanding
	waitMax    int
	nextAccept sim.Tick
	stallSince sim.Tick
	stalled    bool
	st         *StageStats
}

var _ sim.Ticker = (*stage)(nil)

func newStage(a *Adapter, kind stageKind, eng *engine, name string, spec StageSpec, waitMax int, stats *StageStats) *stage {
	p := a.clock.Period
	depth := int(spec.LatencyCycles) * int(spec.ItemsPerCycle) / int(spec.IntervalCycles)
	depth = max(depth, 1, waitMax+1)
	s := &stage{a: a, kind: kind, eng: eng, name: name, period: p,
		latency: sim.Tick(spec.LatencyCycles-1) * p, ipc: int(spec.ItemsPerCycle),
		interval: sim.Tick(spec.IntervalCycles) * p, fl: make([]inflight, depth), waitMax: waitMax, st: stats}
	s.drv = sim.NewTickDriver(name, a.clock, a.eng, s)
	s.in = sim.MustNewPort[item](name+".In", a.eng, int(spec.QueueDepth), p)
	return s
}

// connectOut wires the stage's output to the next stage's input.
func (s *stage) connectOut(next *sim.Port[item]) { s.out = next }

// Tick emits finished items in order, then accepts new ones.
func (s *stage) Tick(now sim.Tick) bool {
	// Emit.
	emitted := 0
	for s.n > 0 && emitted < s.ipc {
		h := &s.fl[s.head]
		if h.waiting || h.readyAt > now {
			break
		}
		if s.out != nil && !s.out.CanSend() {
			if !s.stalled {
				s.stalled, s.stallSince = true, now
				s.st.OutStalls++
			}
			break
		}
		if s.stalled {
			s.stalled = false
			s.st.StallPS += uint64(now - s.stallSince)
		}
		m := h.m
		s.st.Items++
		s.st.ResidencyPS += uint64(now + s.period - h.start)
		*h = inflight{}
		s.head = (s.head + 1) % len(s.fl)
		s.n--
		if s.out != nil {
			if err := s.out.Send(m); err != nil {
				panic(err)
			}
		} else {
			s.a.sink(s, m, now)
		}
		emitted++
	}
	// Accept.
	accepted := 0
	resourceStall := false
	if now >= s.nextAccept {
		for accepted < s.ipc && s.n < len(s.fl) {
			m, ok := s.in.Peek()
			if !ok {
				break
			}
			r := s.a.accept(s, m, now)
			if r == acceptStall {
				s.st.AcceptStalls++
				resourceStall = true
				break
			}
			s.in.Pop()
			i := (s.head + s.n) % len(s.fl)
			s.fl[i] = inflight{m: m, readyAt: now + s.latency, start: now, waiting: r == acceptAsync}
			if r == acceptAsync {
				s.waitingN++
			}
			s.n++
			accepted++
		}
		if accepted > 0 {
			s.nextAccept = now + s.interval
		}
	}
	// Decide when to tick next.
	next := sim.MaxTick
	if s.n > 0 {
		h := &s.fl[s.head]
		switch {
		case h.waiting || s.stalled:
			// woken by the DMA completion or the output port
		case h.readyAt > now:
			next = h.readyAt
		default:
			next = now + s.period
		}
	}
	if !resourceStall && s.in.Len() > 0 && s.n < len(s.fl) {
		t := max(s.nextAccept, s.in.NextVisible(), now+s.period)
		next = min(next, t)
	}
	if next != sim.MaxTick {
		s.drv.WakeAt(next)
	}
	return false
}

// nextSlot is the in-flight slot the item being accepted will take
// (for the DMA completion argument of an async accept).
func (s *stage) nextSlot() uint32 { return uint32((s.head + s.n) % len(s.fl)) }

// asyncDone ends the wait of the item in slot i (its DMA completed).
func (s *stage) asyncDone(now sim.Tick, i uint32) {
	f := &s.fl[i]
	if !f.waiting {
		panic(fmt.Sprintf("nic: %s: completion for slot %d that is not waiting", s.name, i))
	}
	f.waiting = false
	s.waitingN--
	f.readyAt = max(f.readyAt, s.a.clock.NextEdge(now)+s.latency)
	s.drv.Wake()
}
