package pcie

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// mmio is the host CPU's posted write path to the NIC's BAR: the posted
// source of the downstream direction. A write of at most 8 B is an
// uncached doorbell store and leaves as one MWr; a longer write is a run
// of write-combined stores and leaves as 64 B MWr TLPs on 64 B-aligned
// lines. Each source (a posting core or the driver thread,
// AddMMIOSource) emits its writes in order, one TLP per MMIOIssueGapNS
// (uncached) or MMIOWCIssueGapNS (write-combined) at most after its own
// previous TLP: the gap is a core's, between its own uncached writes
// (docs/sources.md 2, 9). The sources' TLPs enter the link earliest ready
// first, the oldest write first at a tie. MMIO addresses use 4DW headers:
// a 64-bit prefetchable BAR above 4 GiB (assumed), as Kalia et al.'s 26 B
// per MMIO TLP implies, 2 B more than the model's 24 B, the same 2 B as
// their completions (docs/sources.md 1.4).
type mmio struct {
	l    *Link
	srcs []mmioSrc
	// ready holds the sources with writes not fully emitted, by the ready
	// time of their head TLP, then their head write's age (srcheap.go).
	ready srcHeap
	// arriving holds the emitted writes in the order their last TLPs left,
	// which is the order they arrive in.
	arriving sim.FIFO[mmioReq]
	queued   int // writes pending: not fully emitted, or not arrived
	gapUC    sim.Tick
	gapWC    sim.Tick
	next     sim.Tick // ready time of the peeked TLP
	scratch  tlp
}

// mmioSrc is one source's writes not yet fully emitted, oldest first.
type mmioSrc struct {
	pend     sim.FIFO[mmioReq]
	lastEmit sim.Tick
	emitted  bool
	at       sim.Tick   // ready time of the head TLP, while in the heap
	seq      uint64     // the head write's place in the transmit order
	meter    *sim.Meter // the source's issue path, busy one gap per TLP
}

type mmioReq struct {
	addr, bytes, off uint64
	done             sim.Handler
	arg              uint64
	called           sim.Tick
	seq              uint64
}

func newMMIO(l *Link) *mmio {
	return &mmio{l: l, gapUC: sim.FromNanoseconds(l.spec.MMIOIssueGapNS),
		gapWC: sim.FromNanoseconds(l.spec.MMIOWCIssueGapNS)}
}

// AddMMIOSource adds a source of MMIO writes (a posting core, the driver
// thread) named name ("Host.Core[3]") and returns its number for
// MMIOWrite. Its issue path is metered as name+".MMIO". Sources are added
// while the model is built, before the run.
func (l *Link) AddMMIOSource(name string) (uint32, error) {
	m := l.mmio
	if len(m.srcs) >= MMIOSourcesMax {
		return 0, fmt.Errorf("pcie: link %q: more than %d MMIO sources", l.name, MMIOSourcesMax)
	}
	meter, err := l.ms.New(name+".MMIO", "issue slots", 1)
	if err != nil {
		return 0, fmt.Errorf("pcie: link %q: %w", l.name, err)
	}
	l.meters = append(l.meters, meter)
	m.srcs = append(m.srcs, mmioSrc{meter: meter})
	return uint32(len(m.srcs) - 1), nil
}

// MMIOWrite is a posted write of bytes (1..4096) from the host CPU to the
// NIC at BAR offset addr, issued by source src (AddMMIOSource): an 8 B
// doorbell or write-combined WQE stores. done runs when the write has
// arrived at the NIC. On error nothing is queued.
func (l *Link) MMIOWrite(addr, bytes uint64, src uint32, done sim.Handler, arg uint64) error {
	m := l.mmio
	// One test for the usual case: 1..MMIOBytesMax bytes (0 wraps above
	// the limit), no wrap, no doorbell across 8 B, a source, room.
	if bytes-1 >= MMIOBytesMax || addr+bytes < addr ||
		bytes <= DoorbellBytes && addr%DoorbellBytes+bytes > DoorbellBytes ||
		int(src) >= len(m.srcs) || m.queued >= l.spec.MMIOQueueMax {
		return l.mmioRefused(addr, bytes, src)
	}
	s := &m.srcs[src]
	r := s.pend.Spare() // push, built in place: no request copied in
	r.addr, r.bytes, r.off, r.done, r.arg, r.called, r.seq = addr, bytes, 0, done, arg, l.eng.Now(), l.down.nextSeq()
	s.pend.Commit()
	m.queued++
	if s.pend.Len() == 1 {
		m.keyHead(s)
		m.ready.push(m.srcs, src)
	}
	l.down.kick()
	return nil
}

// mmioRefused says why MMIOWrite cannot take a write of bytes at addr
// from src; out of line, so that MMIOWrite keeps only its common path.
//
//go:noinline
func (l *Link) mmioRefused(addr, bytes uint64, src uint32) error {
	m := l.mmio
	switch {
	case bytes == 0 || bytes > MMIOBytesMax:
		return fmt.Errorf("pcie: MMIOWrite of %d bytes is out of range 1..%d", bytes, MMIOBytesMax)
	case addr+bytes < addr:
		return fmt.Errorf("pcie: MMIOWrite at %#x of %d bytes wraps the address space", addr, bytes)
	case bytes <= DoorbellBytes && addr%DoorbellBytes+bytes > DoorbellBytes:
		return fmt.Errorf("pcie: MMIOWrite of %d bytes at %#x crosses an 8 B boundary (one uncached store)", bytes, addr)
	case int(src) >= len(m.srcs):
		return fmt.Errorf("pcie: link %q: MMIOWrite from source %d, but %d sources were added (AddMMIOSource)", l.name, src, len(m.srcs))
	default: // the queue is full
		return fmt.Errorf("pcie: MMIOWrite: %w (%d pending)", ErrFull, m.queued)
	}
}

// gap is the least time between s's previous TLP and one of write r.
func (m *mmio) gap(r *mmioReq) sim.Tick {
	if r.bytes > DoorbellBytes {
		return m.gapWC
	}
	return m.gapUC
}

// keyHead sets s's heap key from its head write: when its next TLP is
// ready (the store executed, and a gap after s's previous TLP), and the
// write's place in the transmit order.
func (m *mmio) keyHead(s *mmioSrc) {
	r := s.pend.Front()
	s.at, s.seq = r.called, r.seq
	if s.emitted {
		s.at = max(s.at, s.lastEmit+m.gap(r))
	}
}

// peek offers the next MWr (a source, tx.pick): the head TLP of the
// source first ready. An empty path is answered inline.
func (m *mmio) peek(now sim.Tick) (*tlp, sim.Tick) {
	if len(m.ready) == 0 { // nothing left to emit
		return nil, sim.MaxTick
	}
	return m.peekHead(now)
}

func (m *mmio) peekHead(now sim.Tick) (*tlp, sim.Tick) {
	s := &m.srcs[m.ready[0]]
	if s.at > now {
		return nil, s.at
	}
	r := s.pend.Front()
	cur := r.addr + r.off
	n := r.bytes
	if r.bytes > DoorbellBytes {
		n = min(r.bytes-r.off, MMIOLineBytes-cur%MMIOLineBytes)
	}
	m.next = s.at
	m.scratch.set(KindMWr, classP, true, r.off+n == r.bytes, false, n, 0, cur, 0, 0, r.seq)
	return &m.scratch, 0
}

// headReady is when the CPU emits the TLP peek offered (its store, after
// the issue gap).
func (m *mmio) headReady() sim.Tick { return m.next }

func (m *mmio) take(now sim.Tick, t *tlp) {
	src := m.ready[0]
	s := &m.srcs[src]
	s.lastEmit, s.emitted = m.next, true
	r := s.pend.Front()
	if g := m.gap(r); g > 0 { // a span of no time adds nothing
		s.meter.Busy(m.next, m.next+g)
	}
	r.off += t.payload
	if !t.last {
		m.keyHead(s)
		m.ready.fix(m.srcs)
		return
	}
	*m.arriving.Spare() = *r // now waits to arrive
	m.arriving.Commit()
	r.done = nil // the only reference the slot holds
	s.pend.Drop()
	if s.pend.Len() > 0 {
		m.keyHead(s)
		m.ready.fix(m.srcs)
		return
	}
	m.ready.pop(m.srcs)
}

func (m *mmio) arrived(now sim.Tick, t *tlp) {
	if !t.last {
		return
	}
	r := m.arriving.Front() // pop, without copying the request out and zeroing its slot
	bytes, done, arg := r.bytes, r.done, r.arg
	r.done = nil // the only reference the slot holds
	m.arriving.Drop()
	m.queued--
	s := &m.l.stats
	s.MMIOWrites++
	s.MMIOBytes += bytes
	if done != nil {
		done.Handle(now, arg)
	}
}
