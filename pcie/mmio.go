package pcie

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// mmio is the host CPU's posted write path to the NIC's BAR: the posted
// source of the downstream direction. A write of at most 8 B is an
// uncached doorbell store and leaves as one MWr; a longer write is a run
// of write-combined stores and leaves as 64 B MWr TLPs on 64 B-aligned
// lines. The CPU emits one TLP per MMIOIssueGapNS (uncached) or
// MMIOWCIssueGapNS (write-combined) at most (docs/sources.md 2, 9). MMIO
// addresses use 4DW headers: a 64-bit prefetchable BAR above 4 GiB
// (assumed), as Kalia et al.'s 26 B per MMIO TLP implies, 2 B more than
// the model's 24 B, the same 2 B as their completions (docs/sources.md
// 1.4).
type mmio struct {
	l *Link
	// reqs holds the writes in order: the oldest `arriving` are emitted and
	// wait to arrive at the NIC, the rest are not yet fully emitted. A
	// write only moves from one part to the other, oldest first, so one
	// ring holds both.
	reqs     sim.FIFO[mmioReq]
	arriving int
	gapUC    sim.Tick
	gapWC    sim.Tick
	lastEmit sim.Tick
	emitted  bool
	next     sim.Tick // ready time of the peeked TLP
	scratch  tlp
	meter    *sim.Meter // the CPU's issue path, busy one gap per TLP
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

// MMIOWrite is a posted write of bytes (1..4096) from the host CPU to the
// NIC at BAR offset addr: an 8 B doorbell or write-combined WQE stores.
// done runs when the write has arrived at the NIC. On error nothing is
// queued.
func (l *Link) MMIOWrite(addr, bytes uint64, done sim.Handler, arg uint64) error {
	m := l.mmio
	// One test for the usual case: 1..MMIOBytesMax bytes (0 wraps above
	// the limit), no wrap, no doorbell across 8 B, room.
	if bytes-1 >= MMIOBytesMax || addr+bytes < addr ||
		bytes <= DoorbellBytes && addr%DoorbellBytes+bytes > DoorbellBytes || m.reqs.Len() >= l.spec.MMIOQueueMax {
		return l.mmioRefused(addr, bytes)
	}
	r := m.reqs.Spare() // push, built in place: no request copied in
	r.addr, r.bytes, r.off, r.done, r.arg, r.called, r.seq = addr, bytes, 0, done, arg, l.eng.Now(), l.down.nextSeq()
	m.reqs.Commit()
	l.down.kick()
	return nil
}

// mmioRefused says why MMIOWrite cannot take a write of bytes at addr;
// out of line, so that MMIOWrite keeps only its common path.
//
//go:noinline
func (l *Link) mmioRefused(addr, bytes uint64) error {
	m := l.mmio
	switch {
	case bytes == 0 || bytes > MMIOBytesMax:
		return fmt.Errorf("pcie: MMIOWrite of %d bytes is out of range 1..%d", bytes, MMIOBytesMax)
	case addr+bytes < addr:
		return fmt.Errorf("pcie: MMIOWrite at %#x of %d bytes wraps the address space", addr, bytes)
	case bytes <= DoorbellBytes && addr%DoorbellBytes+bytes > DoorbellBytes:
		return fmt.Errorf("pcie: MMIOWrite of %d bytes at %#x crosses an 8 B boundary (one uncached store)", bytes, addr)
	default: // the queue is full
		return fmt.Errorf("pcie: MMIOWrite: %w (%d pending)", ErrFull, m.reqs.Len())
	}
}

// peek offers the next MWr (a source, tx.pick). An empty queue is
// answered inline.
func (m *mmio) peek(now sim.Tick) (*tlp, sim.Tick) {
	if m.reqs.Len() == m.arriving { // nothing left to emit
		return nil, sim.MaxTick
	}
	return m.peekHead(now)
}

func (m *mmio) peekHead(now sim.Tick) (*tlp, sim.Tick) {
	r := m.reqs.Slot(m.arriving)
	cur := r.addr + r.off
	n, gap := r.bytes, m.gapUC
	if r.bytes > DoorbellBytes {
		n, gap = min(r.bytes-r.off, MMIOLineBytes-cur%MMIOLineBytes), m.gapWC
	}
	ready := r.called
	if m.emitted {
		ready = max(ready, m.lastEmit+gap)
	}
	if ready > now {
		return nil, ready
	}
	m.next = ready
	m.scratch.set(KindMWr, classP, true, r.off+n == r.bytes, false, n, 0, cur, 0, 0, r.seq)
	return &m.scratch, 0
}

// headReady is when the CPU emits the TLP peek offered (its store, after
// the issue gap).
func (m *mmio) headReady() sim.Tick { return m.next }

func (m *mmio) take(now sim.Tick, t *tlp) {
	m.lastEmit, m.emitted = m.next, true
	r := m.reqs.Slot(m.arriving)
	gap := m.gapUC
	if r.bytes > DoorbellBytes {
		gap = m.gapWC
	}
	m.meter.Busy(m.next, m.next+gap)
	r.off += t.payload
	if t.last {
		m.arriving++ // now waits to arrive
	}
}

func (m *mmio) arrived(now sim.Tick, t *tlp) {
	if !t.last {
		return
	}
	r := m.reqs.Front() // pop, without copying the request out and zeroing its slot
	bytes, done, arg := r.bytes, r.done, r.arg
	r.done = nil // the only reference the slot holds
	m.reqs.Drop()
	m.arriving--
	s := &m.l.stats
	s.MMIOWrites++
	s.MMIOBytes += bytes
	if done != nil {
		done.Handle(now, arg)
	}
}
