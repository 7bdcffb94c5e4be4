package nic

import (
	"errors"
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// mptUpdate is the commit point of a request: the key-table (MPT) entry
// changes in mtt and the TPT writes it to ICM by DMA (posted), updating or
// invalidating its cached copy.
//
//   - FastRegister: a new key if the request carries one (docs/ndk.md 5.3),
//     then the region [BaseVirtualAddress, +Length) with its rights, page
//     size, FBO and MTT range; the entry becomes valid.
//   - Bind: the window gets its new key, region, rights and QP (5.5).
//   - Invalidate: the entry becomes invalid (rule 56): old-token accesses
//     fail from now on.
//   - Send, Read, Write execute here (requester.go).
//
// The hazard interlock taken at validate is released here.
type mptUpdate struct{ a *Adapter }

func newMPTUpdate(a *Adapter, e *engine) *stage {
	s := a.newStage(e.prefix, "MPTUpdate", a.spec.MPTUpdate, mptUpdate{a}, 0)
	a.tptWrites.add(s, e)
	return s
}

func (x mptUpdate) needsWrite(m item) bool {
	qp := x.a.qps[m.qp]
	w := qp.slot(m.idx)
	return !isData(w.op) && !w.skip && !qp.cancels(m.idx)
}

func (x mptUpdate) accept(s *stage, m item, now sim.Tick) acceptResult {
	a := x.a
	qp := a.qps[m.qp]
	w := qp.slot(m.idx)
	if isData(w.op) {
		return a.req.execute(s, qp, w, m.idx, now)
	}
	if w.skip {
		w.tExec = now
		return acceptSync
	}
	if qp.cancels(m.idx) {
		// 5.1: the QP entered the error state after this request passed
		// validate, before it began executing: cancelled, no effect. Its
		// interlock is released; a request of another QP that was checked
		// against the state this one would have left meets the real state
		// at its own commit.
		a.cancel(w)
		a.hazards.ended(w.tok.Index())
		a.hazards.commit(w.tok.Index())
		w.tExec = now
		s.noWriteWait(now) // it may have waited for a slot before its QP's error
		return acceptSync
	}
	if !a.tptWrites.mayWrite(s.writerEngine) {
		a.Stats.TPTWriteStalls++
		a.tptWrites.stageWaits(s, now, true)
		return acceptStall
	}
	tok, err := x.commit(w)
	if err != nil {
		a.hazards.ended(w.tok.Index())
	}
	a.hazards.commit(w.tok.Index())
	w.tExec = now
	if err != nil {
		// Only a consumer that closed the MR (rule 61) or re-initialised it
		// while the request was in flight, or a request checked against the
		// state a cancelled one would have left, gets here: an error
		// completion.
		a.failRequest(qp, m.idx, StatusInvalidDeviceState)
		return acceptSync
	}
	a.settleWR(w, true) // a Bind's window is bound, a key change is the entry's
	if err := a.tpt.WriteMPT(tok.Index(), nil, 0); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMPT: %v", a.name, err))
	}
	a.tptWrites.slotTaken(s, now)
	a.Stats.addBytes(w.kind, purposeMPTWrite, uint64(a.spec.TPT.MPTEntryBytes))
	return acceptSync
}

// errRegistered is a FastRegister's commit on an MR that is still valid.
var errRegistered = errors.New("nic: FastRegister of a valid MR")

// commit makes the request's change to its key-table entry.
func (x mptUpdate) commit(w *wr) (mtt.Token, error) {
	keys := x.a.tpt.Keys()
	tok := w.tok
	var err error
	switch w.op {
	case OpFastRegister:
		if x.a.hazards.entries[tok.Index()].stale && keys.Valid(tok.Index()) {
			// Rule 45: the MR must not be registered; it still is when the
			// Invalidate this request was checked behind was cancelled.
			return tok, errRegistered
		}
		if w.rotate {
			tok, err = keys.RotateKey(tok)
		}
		if err == nil {
			r := mtt.Region{BaseVA: w.baseVA, Length: w.length, Rights: w.rights, PageShift: mtt.PageShift4K,
				FBO: w.fbo, MTTOffset: w.mr.mttOff, MTTCount: w.npages, XlateVA: w.baseVA}
			err = keys.SetRegion(tok, r)
		}
	case OpBind:
		// 5.5, rules 48-50: BindWindow checks the MR is valid, of the same
		// PD, the window wholly inside it, and gives the window its new key.
		// The window becomes bound to the MR in the provider when the
		// request settles (settleWR): the MR counted it from the post on.
		tok, err = keys.BindWindow(tok, w.mr.tok, w.qpn, w.baseVA, w.length, w.rights)
	case OpInvalidate:
		err = keys.Invalidate(tok)
		if err == nil && w.mw != nil {
			x.a.windowUnbound(w.mw)
		}
	}
	return tok, err
}
