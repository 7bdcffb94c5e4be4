package mtt

// The registration write path: WriteMPT and WriteMTT take a write slot,
// update or invalidate the cached lines at once, and queue the op; each
// tick issues its DMA writes (issueWrites), cut into chunks. The slot
// frees when the link has taken the op's last TLP (writeSent): a posted
// write leaves nothing behind in the NIC. The caller's done runs when the
// last chunk is visible in host memory; the host makes writes visible in
// order, so every chunk is by then.

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

type writeOp struct {
	tab         int
	addr, end   uint64
	chunk       uint64
	outstanding int // chunks issued that the link has not taken yet
	done        sim.Handler
	arg         uint64
}

// writeSent is the link taking the last TLP of one DMA write of write op
// arg: a handler of its own, which need not dispatch on the event's kind
// as Translator.Handle does.
type writeSent struct{ t *Translator }

func (e writeSent) Handle(now sim.Tick, arg uint64) {
	t, id := e.t, uint32(arg)
	w := &t.writes[id]
	w.outstanding--
	if w.addr == w.end && w.outstanding == 0 {
		w.done = nil // write sets every other field; this holds no reference
		t.freeWrites = append(t.freeWrites, id)
		t.writesM.Set(now, uint64(len(t.writes)-len(t.freeWrites)))
		t.Stats.WritesDone++
		if t.slotFreed != nil {
			t.slotFreed.Handle(now, 0)
		}
	}
}

// OnWriteSlotFree makes h told, h.Handle(now, 0), each time a write slot
// frees: what waits for one (CanWrite) may try again.
func (t *Translator) OnWriteSlotFree(h sim.Handler) { t.slotFreed = h }

func (t *Translator) issueWrites() bool {
	did := false
	for t.writeQ.len() > 0 {
		if !t.dma.CanAccept() {
			t.blocked()
			return did
		}
		id := t.writeQ.front()
		w := &t.writes[id]
		n := min(w.chunk-w.addr%w.chunk, w.end-w.addr)
		var done sim.Handler // the caller's, on the last chunk only
		if w.addr+n == w.end {
			done = w.done
		}
		if err := t.dma.WritePosted(w.addr, n, t.writeEv, uint64(id), done, w.arg); err != nil {
			panic(fmt.Sprintf("mtt: %s: DMA write refused after CanAccept: %v", t.name, err))
		}
		t.tabs[w.tab&1].stats.ICMWriteBytes += n // tabMPT or tabMTT: the mask spares a bounds check
		w.addr += n
		w.outstanding++
		if w.addr == w.end {
			t.writeQ.pop()
		}
		did = true
	}
	return did
}

// TrackWriteWaits declares that the unit's user reports, with WriteWaits,
// when a registration write waits for a write slot (sim.Meter.TrackWaits
// on NIC.TPT.Writes).
func (t *Translator) TrackWriteWaits() { t.writesM.TrackWaits() }

// WriteWaits records at now whether a registration write waits for a write
// slot (sim.Meter.Waits).
func (t *Translator) WriteWaits(now sim.Tick, waiting bool) { t.writesM.Waits(now, waiting) }

// CanWrite reports whether WriteMPT/WriteMTT has a free write slot.
func (t *Translator) CanWrite() bool { return len(t.freeWrites) > 0 }

// WriteMPT writes key-table entry index to ICM by DMA (one MPTEntryBytes
// write) and updates or invalidates the cached copy at once, per
// CacheWritePolicy. done.Handle(now, arg) runs when the write is visible
// in host memory; done may be nil. Its write slot frees earlier, when the
// write has left the NIC (OnWriteSlotFree). The functional change (KeyTable.SetRegion,
// Invalidate, BindWindow, ...) is the caller's and is visible to lookups
// from the moment it is made; see doc.go.
func (t *Translator) WriteMPT(index uint32, done sim.Handler, arg uint64) error {
	if index >= t.keys.Len() {
		return t.writeMPTErr(index)
	}
	addr := t.lay.mptAddr(index)
	return t.write(tabMPT, addr, addr+uint64(t.spec.MPTEntryBytes), uint64(t.spec.MPTEntryBytes), done, arg)
}

// WriteMTT writes MTT entries [offset, offset+count) to ICM by DMA, rounded
// out to whole 64 B units of 8 entries and cut into MTTWriteBytesMax writes
// (docs/sources.md §6), and updates or invalidates cached copies of those lines.
func (t *Translator) WriteMTT(offset, count uint32, done sim.Handler, arg uint64) error {
	if count == 0 || uint64(offset)+uint64(count) > uint64(t.mtt.Len()) {
		return t.writeMTTErr(offset, count)
	}
	const unit = 64
	lo := t.lay.mttAddr(uint64(offset)) &^ (unit - 1)
	hi := (t.lay.mttAddr(uint64(offset)+uint64(count)) + unit - 1) &^ (unit - 1)
	return t.write(tabMTT, lo, hi, uint64(t.spec.MTTWriteBytesMax), done, arg)
}

func (t *Translator) write(ti int, lo, hi, chunk uint64, done sim.Handler, arg uint64) error {
	if len(t.freeWrites) == 0 {
		return t.writesBusy()
	}
	tb := &t.tabs[ti&1]     // tabMPT or tabMTT: the mask spares a bounds check
	sh := tb.lineShift & 63 // < 64: the mask spares the test of a shift past the width
	last := (hi - 1 - tb.base) >> sh
	for line := (lo - tb.base) >> sh; line <= last; line++ {
		if t.writeUpdate {
			if tb.cache.Contains(line) {
				tb.stats.Updates++
			}
		} else if tb.cache.Invalidate(line) {
			tb.stats.Invalidations++
		}
	}
	id := t.freeWrites[len(t.freeWrites)-1]
	t.freeWrites = t.freeWrites[:len(t.freeWrites)-1]
	w := &t.writes[id] // set field by field: cheaper than a whole value that holds a pointer
	w.tab, w.addr, w.end, w.chunk, w.outstanding = ti, lo, hi, chunk, 0
	w.done, w.arg = done, arg
	t.writesM.Set(t.eng.Now(), uint64(len(t.writes)-len(t.freeWrites)))
	t.writeQ.push(id)
	t.drv.Wake()
	return nil
}

// The errors of WriteMPT, WriteMTT and write, out of line: their
// formatting would otherwise sit among the common path's instructions.

//go:noinline
func (t *Translator) writeMPTErr(index uint32) error {
	return fmt.Errorf("mtt: %s: WriteMPT of entry %d beyond %d", t.name, index, t.keys.Len())
}

//go:noinline
func (t *Translator) writeMTTErr(offset, count uint32) error {
	return fmt.Errorf("mtt: %s: WriteMTT of [%d, +%d) outside [0, %d)", t.name, offset, count, t.mtt.Len())
}

//go:noinline
func (t *Translator) writesBusy() error {
	return fmt.Errorf("%w: %s: all %d write slots in use", ErrBusy, t.name, len(t.writes))
}
