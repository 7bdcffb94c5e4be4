package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// mttWrite is the MTT write stage of a FastRegister: it stores the page
// addresses in the MR's MTT range (the functional image in mtt) and has the
// TPT write them to ICM by DMA, in 64 B units of 8 entries (docs/sources.md
// 6); the TPT updates or invalidates cached copies of those lines. The
// entry is still invalid at this point (validate checked it), so no access
// can see a half-written translation. The write is posted: the stage does
// not wait for it, only for a free TPT write slot.
type mttWrite struct{ a *Adapter }

func newMTTWrite(a *Adapter, e *engine) *stage {
	s := a.newStage(e.prefix, "MTTWrite", a.spec.MTTWrite, mttWrite{a}, 0)
	a.tptWrites.add(s, e)
	a.hazards.mttWrites = append(a.hazards.mttWrites, s.drv)
	return s
}

// needsWrite says whether the item may need a TPT write slot: any
// FastRegister not skipped (writesMTT, the exact answer, costs a key-table
// read; the rare one that writes nothing takes no slot at its accept).
func (x mttWrite) needsWrite(m item) bool {
	w := x.a.qps[m.qp].slot(m.idx)
	return !w.skip && w.op == OpFastRegister
}

// writesMTT reports whether FastRegister idx of qp, whose entry's
// scoreboard record is hz, writes its page list into its MR's MTT range:
// whether it will take effect. One the MPT update will cancel (its QP
// entered the error state after validate, 5.1) writes nothing, and nor do
// those that will complete in error: one whose MR was closed (rule 61) or
// initialised again for fewer pages while it was in flight, which no longer
// owns a range that holds its pages, and one whose MR is still valid
// (rule 45: the Invalidate it was checked behind was cancelled or failed,
// which marked the record stale). Writing would change another
// registration's translation, or a live one's. The earlier requests of the
// entry have committed (accept waits for them), so its state is final.
func (a *Adapter) writesMTT(qp *QP, w *wr, idx uint64, hz *hazard) bool {
	return !qp.cancels(idx) && w.mr.mttCount >= w.npages && !(hz.stale && a.tpt.Keys().Valid(w.tok.Index()))
}

// accept counts each request on a key-table entry as past this stage until
// it commits (hazard.pastMTT). A FastRegister first waits for the requests
// of its entry ahead of it, past this stage and not committed: until they
// commit, the pages in its MR's MTT range may still be a live
// registration's, which an Invalidate ahead is about to end (its engine's
// pipeline keeps their order, so they are all earlier). Then it writes its
// page list, if it will take effect (writesMTT).
func (x mttWrite) accept(s *stage, m item, now sim.Tick) acceptResult {
	a := x.a
	qp := a.qps[m.qp]
	w := qp.slot(m.idx)
	if w.skip || isData(w.op) {
		return acceptSync
	}
	hz := &a.hazards.entries[w.tok.Index()]
	if w.op != OpFastRegister {
		hz.pastMTT++
		return acceptSync
	}
	if hz.pastMTT > 0 {
		hz.mttWait = true
		return acceptStall // woken when they have committed (scoreboard.commit)
	}
	if !a.writesMTT(qp, w, m.idx, hz) {
		hz.pastMTT++
		s.noWriteWait(now) // it may have waited for a slot before its QP's error
		return acceptSync
	}
	if !a.tptWrites.mayWrite(s.writerEngine) {
		a.Stats.TPTWriteStalls++
		a.tptWrites.stageWaits(s, now, true)
		return acceptStall // woken by tptWriters
	}
	hz.pastMTT++
	x.write(s, w, now)
	return acceptSync
}

// write stores w's page list in its MR's MTT range and has the TPT write
// it to ICM, in a write slot stage s has been granted.
func (x mttWrite) write(s *stage, w *wr, now sim.Tick) {
	a := x.a
	if err := a.tpt.MTT().Set(w.mr.mttOff, mtt.PageShift4K, w.pages[:w.npages]); err != nil {
		panic(fmt.Sprintf("nic: %s: MTT set: %v", a.name, err)) // pages were checked at post
	}
	if err := a.tpt.WriteMTT(w.mr.mttOff, w.npages, nil, 0); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMTT: %v", a.name, err))
	}
	a.tptWrites.slotTaken(s, now)
	a.Stats.addBytes(w.kind, purposeMTTWrite, mttWriteBytes(w.mr.mttOff, w.npages))
}

// mttWriteBytes is what WriteMTT puts on PCIe: the entries rounded out to
// whole 64 B units.
func mttWriteBytes(off, count uint32) uint64 {
	lo := uint64(off) * mtt.MTTEntryBytes &^ 63
	hi := (uint64(off+count)*mtt.MTTEntryBytes + 63) &^ 63
	return hi - lo
}

// tptWriters handles the TPT's registration writes: when one has left the
// NIC, what waits for a write slot may go on, in this order: pending
// initialisations, the firmware, each engine's MTT write and MPT update.
//
// The engines take the slots in turn (a round-robin arbiter): an engine
// refused a slot waits, and while engines wait a free slot goes to the
// first of them from turn on, then turn moves past it. Without the turn,
// the engine whose stages are woken first would take every freed slot
// while its own requests last, and the others would starve.
type tptWriters struct {
	a       *Adapter
	stages  []*stage // each engine's MTT write and MPT update, engine by engine
	engines int      // the adapter's execution engines (at most 64)
	waiting uint64   // bit e: a stage of engine e was refused and has taken no slot since
	turn    int      // the engine first in line among the waiting ones
	// stagesWaiting counts the writer stages whose head item waits for a
	// slot (tptwaits.go).
	stagesWaiting int
}

// add makes s, a stage of engine e, a writer.
func (t *tptWriters) add(s *stage, e *engine) {
	s.writerEngine = int(e.idx)
	t.stages = append(t.stages, s)
}

// mayWrite reports whether a stage of engine e may take a write slot now:
// one is free and no other engine waits ahead of e. When it may not, e
// waits.
func (t *tptWriters) mayWrite(e int) bool {
	free := t.a.tpt.CanWrite()
	if t.engines == 1 {
		return free // no other engine to take turns with
	}
	if free && (t.waiting == 0 || t.waiting == 1<<e || t.first() == e) {
		return true
	}
	t.waiting |= 1 << e
	return false
}

// first is the waiting engine first in line: the first from turn on.
func (t *tptWriters) first() int {
	for i := range t.engines {
		if e := (t.turn + i) % t.engines; t.waiting&(1<<e) != 0 {
			return e
		}
	}
	return -1
}

var _ sim.Handler = (*tptWriters)(nil)

func (t *tptWriters) Handle(sim.Tick, uint64) { t.wake() }

func (t *tptWriters) wake() {
	t.a.calls.writeSlotFree()
	t.a.fw.writeSlotFree()
	t.a.resp.writeSlotFree()
	t.wakeStages()
}

func (t *tptWriters) wakeStages() {
	for _, s := range t.stages {
		s.drv.Wake()
	}
}

// tptWriteWork is the work of a stage whose items may need a TPT write
// slot.
type tptWriteWork interface {
	// needsWrite reports whether accepting m asks for a write slot.
	needsWrite(m item) bool
}

// slotFree reports whether the TPT has a free write slot.
func (t *tptWriters) slotFree() bool { return t.a.tpt.CanWrite() }

// countStall counts a refused write slot as an accept does. It and
// slotFree are the writers', not each work's: a stage's idle tick that
// counts such a stall then makes no call.
func (t *tptWriters) countStall() { t.a.Stats.TPTWriteStalls++ }

// granted: engine e took a slot; the turn passes to the engine after it.
// A slot still free goes to the next waiting engine, whose stages were
// refused and wait for a wake.
func (t *tptWriters) granted(e int) {
	t.waiting &^= 1 << e
	if t.turn = e + 1; t.turn == t.engines {
		t.turn = 0
	}
	if t.waiting != 0 && t.a.tpt.CanWrite() {
		t.wakeStages()
	}
}

// slotTaken is a stage's accept taking a write slot: when that was the last,
// the tick another writing stage has queued for this edge, after this
// one, may find none (stage.reserveWriteStall).
func (t *tptWriters) slotTaken(by *stage, now sim.Tick) {
	if by.tptWaiting {
		t.stageWaits(by, now, false)
	}
	if t.waiting != 0 {
		t.granted(by.writerEngine)
	}
	if t.a.tpt.CanWrite() {
		return
	}
	for _, s := range t.stages {
		if s != by {
			s.reserveWriteStall(now)
		}
	}
}
