package nic

import (
	"fmt"
	"unsafe"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// validate is the stage where the NIC checks a request, when it executes,
// against the state only the hardware sees (docs/ndk.md 5.1): the QP's
// state, READ_FENCE, and the key-table entry of the target MR.
//
//   - A QP in the error state (an earlier error completion, or NdkFlush)
//     completes the request with STATUS_CANCELLED and no effect (5.1, rule 8).
//   - READ_FENCE: the request waits until every earlier RDMA Read of the QP
//     has completed (rule 6): a Read counts from validate until its data is
//     placed (or it is refused).
//   - Hazard interlock: the engines are in order, so a request whose MR has
//     earlier requests in flight on the same engine (past validate, not yet
//     committed at the MPT update) is checked against the state those will
//     leave (a scoreboard: valid or not, and the key); one whose MR has
//     requests in flight on another engine waits until they commit. The
//     provider defines the same way the token a request carries: a Bind
//     or key-rotating FastRegister advances the object's token at its
//     post, so later posts carry the key it will leave. One that ends
//     without effect (cancelled, or failed here or at its commit) gives
//     its key back when it settles (settleWR, errorstate.go), so the
//     token the consumer reads again matches the entry once nothing is
//     outstanding; a request posted behind it with the key it would have
//     left finds the real key here or at its commit and fails, with no
//     effect either.
//   - FastRegister over an MR that is still valid is an error completion
//     STATUS_INVALID_DEVICE_STATE (5.6, rule 45); so is a token whose key is
//     not the entry's (stale).
//   - Invalidate of an MR that is not valid (a double invalidate, rule 57;
//     never registered) is an error completion STATUS_INVALID_DEVICE_STATE.
//   - The key-table entry is read through the TPT's MPT cache
//     (mtt.Translator.ReadMPT): the request leaves validate no earlier than
//     the cache's hit latency, or, on a miss, the ICM read over PCIe; the
//     stage is in order, so a miss holds the requests behind it (the
//     "asynchronous TPT read that blocks the send queue", docs/sources.md 5).
//     A request whose MR already has requests in flight on this engine
//     finds the entry on the NIC and does not read it again.
//
// An error puts the QP in the error state (errorstate.go): every later
// request of the QP then completes with STATUS_CANCELLED, in post order,
// and so does every posted receive.
type validate struct {
	a      *Adapter
	eng    uint32
	mptReq []mtt.Request // MPT reads, by in-flight slot
}

func newValidate(a *Adapter, e *engine) *stage {
	v := &validate{a: a, eng: e.idx}
	s := a.newStage(e.prefix, "Validate", a.spec.Validation, v, int(a.spec.ValidateReadsMax))
	// The stage is in order: an item whose MPT read misses holds its place
	// and those behind it until the read returns, and when the MPT cache
	// misses the stage fills with them: the time it is full with its oldest
	// request waiting for its read is service the reads take from it.
	s.blocked = a.meter(s.name+".ReadBlocked", "stage", 1)
	s.blocked.Serves()
	v.mptReq = make([]mtt.Request, len(s.fl))
	a.hazards.validates = append(a.hazards.validates, s.drv)
	return s
}

// accept is kept out of stage.Tick, which every stage shares: the
// profile-guided build would otherwise devirtualize the call there and
// inline this body, and every stage's tick would pay for its larger frame
// and spills (measured: 8.8 M fewer instructions on the 2 ms quickstart).
//
//go:noinline
func (v *validate) accept(s *stage, m item, now sim.Tick) acceptResult {
	a := v.a
	qp := a.qps[m.qp]
	w := qp.slot(m.idx)
	if qp.cancels(m.idx) {
		a.cancel(w) // 5.1: not begun when the QP entered the error state
		return acceptSync
	}
	if w.flags&OpReadFence != 0 && qp.readsOut > 0 {
		a.Stats.ReadFenceStalls++
		return acceptStall
	}
	if isData(w.op) {
		if w.op == OpRead {
			qp.readsOut++ // outstanding from here until its answer (READ_FENCE, rule 6)
		}
		return acceptSync // checked at execute (local SGE) and by the responder
	}
	hz := &a.hazards.entries[w.tok.Index()]
	if hz.n > 0 && hz.engine != uint16(v.eng) {
		a.Stats.HazardStalls++
		hz.waiters = true
		return acceptStall
	}
	readMPT := hz.n == 0 // no request in flight has brought the entry onto the NIC
	if readMPT && !a.tpt.CanAccept() {
		a.tpt.AddWaker(s.drv)
		a.Stats.MPTReadStalls++
		return acceptStall
	}
	valid, key := a.entryState(hz, w.tok)
	result := acceptSync
	if readMPT {
		slot := s.nextSlot()
		r := &v.mptReq[slot]
		*r = mtt.Request{Token: w.tok, Pages: r.Pages}
		if err := a.tpt.ReadMPT(r, s, slot); err != nil {
			panic(fmt.Sprintf("nic: %s: MPT read refused after CanAccept: %v", s.name, err))
		}
		a.Stats.MPTReads++
		result = acceptAsync
	}
	if !tokenFits(w.op, w.tok.Key(), key, valid) {
		a.failRequest(qp, m.idx, StatusInvalidDeviceState) // 5.1: the QP goes to the error state
		return result
	}
	hz.n++
	hz.engine = uint16(v.eng)
	hz.valid = w.op == OpFastRegister || w.op == OpBind
	if w.rotate {
		key++
	}
	hz.key = key
	return result
}

// scoreboard is the hazard interlock: per key-table index, the requests
// past validate and not yet committed; and every engine's validate stage.
type scoreboard struct {
	entries   []hazard
	validates []*sim.TickDriver
	mttWrites []*sim.TickDriver // every engine's MTT write stage
}

// hazard is the scoreboard entry of one key-table index: requests past
// validate and not yet committed, the engine they run on, and the state
// (validity, key) they will leave.
// entryState is whether the entry tok names is valid, and its key, as the
// requests before this one leave it: the scoreboard's view while a request
// of the index is in flight, otherwise the key table's. A free or missing
// entry makes any token stale.
func (a *Adapter) entryState(hz *hazard, tok mtt.Token) (valid bool, key uint8) {
	if hz.n > 0 {
		return hz.valid, hz.key
	}
	ent, ok := a.tpt.Keys().Entry(tok.Index())
	if !ok || ent.State == mtt.StateFree {
		return false, tok.Key() + 1
	}
	return ent.State == mtt.StateValid, ent.Key
}

// tokenFits reports whether a request op whose token carries tokKey may
// go on an entry of key key, valid or not: the keys match, a fast-register
// or bind finds the entry invalid (5.6 rule 45; 5.5: invalidate before
// rebinding) and an invalidate finds it valid.
func tokenFits(op OpType, tokKey, key uint8, valid bool) bool {
	switch {
	case key != tokKey:
		return false
	case op == OpFastRegister || op == OpBind:
		return !valid
	case op == OpInvalidate:
		return valid
	}
	return true
}

type hazard struct {
	n uint16
	// pastMTT counts the requests past the MTT write stage and not
	// committed: a FastRegister writes its page list only when none is
	// left (mttWrite.accept), and mttWait says one waits. (Fields ordered
	// so that the record stays 12 B.)
	pastMTT uint16
	engine  uint16
	valid   bool
	key     uint8
	waiters bool // a request on another engine waits
	mttWait bool
	// stale: a request of the entry was cancelled or failed at its commit
	// while others were in flight behind it, checked against the state it
	// would have left; they meet the real state at their own commit.
	stale bool
}

var _ = [12 - unsafe.Sizeof(hazard{})]struct{}{} // 12 B per key-table entry (footprint.go)

// ended marks idx's record stale when a request of it is cancelled or
// fails at its commit (MPT update) while others are in flight behind it.
func (b *scoreboard) ended(idx uint32) {
	if hz := &b.entries[idx]; hz.n > 1 {
		hz.stale = true
	}
}

// commit releases one in-flight request of index idx (MPT update). Every
// request the scoreboard counts passed the MTT write stage (mttWrite.accept)
// before its commit; the guard keeps a broken count from wrapping, which
// would hold the entry's FastRegisters for good.
func (b *scoreboard) commit(idx uint32) {
	hz := &b.entries[idx]
	hz.n--
	if hz.pastMTT > 0 {
		hz.pastMTT--
	}
	if hz.mttWait || hz.n == 0 && (hz.waiters || hz.stale) {
		b.released(hz)
	}
}

// released wakes what waited for hz's requests to commit: a FastRegister
// at the MTT write stage once none is past it, the validate stages once
// none is in flight (when the record also stops being stale). Out of line:
// commit keeps only its common path.
//
//go:noinline
func (b *scoreboard) released(hz *hazard) {
	if hz.pastMTT == 0 && hz.mttWait {
		hz.mttWait = false
		for _, d := range b.mttWrites {
			d.Wake()
		}
	}
	if hz.n > 0 {
		return
	}
	hz.stale = false
	if hz.waiters {
		hz.waiters = false
		b.wakeValidates()
	}
}

// wakeValidates wakes the validate stage of every engine.
func (b *scoreboard) wakeValidates() {
	for _, d := range b.validates {
		d.Wake()
	}
}
