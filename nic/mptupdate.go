package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// mptUpdate is the commit point of a request: the key-table (MPT) entry
// changes in mtt and the TPT writes it to ICM by DMA (posted), updating or
// invalidating its cached copy.
//
//   - FastRegister: a new key if the request carries one (docs/ndk.md 5.3), then
//     the region [BaseVirtualAddress, +Length) with its rights, page size,
//     FBO and MTT range; the entry becomes valid.
//   - Invalidate: the entry becomes invalid (rule 56): old-token accesses
//     fail from now on.
//
// The hazard interlock taken at validate is released here.
func (a *Adapter) mptUpdate(e *engine, w *wr, idx uint64, now sim.Tick) acceptResult {
	if isData(w.op) {
		return a.execData(a.qps[w.qpn], w, idx, now)
	}
	if w.skip {
		w.tExec = now
		return acceptSync
	}
	if !a.tpt.CanWrite() {
		a.Stats.TPTWriteStalls++
		return acceptStall
	}
	keys := a.tpt.Keys()
	tok := w.tok
	var err error
	switch w.op {
	case OpFastRegister:
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
		tok, err = keys.BindWindow(tok, w.mr.tok, w.qpn, w.baseVA, w.length, w.rights)
		if err == nil && w.mw.bound == nil {
			w.mw.bound = w.mr
			w.mr.windows++
		}
	case OpInvalidate:
		err = keys.Invalidate(tok)
		if err == nil && w.mw != nil {
			a.windowUnbound(w.mw)
		}
	}
	a.commitHazard(w.tok.Index())
	w.tExec = now
	if err != nil {
		// Only a consumer that closed the MR (rule 61) or re-initialised it
		// while the request was in flight gets here: an error completion.
		w.status, w.skip = StatusInvalidDeviceState, true
		a.qps[w.qpn].err = true
		a.Stats.ErrorCompletions++
		return acceptSync
	}
	if err := a.tpt.WriteMPT(tok.Index(), a, evWriteDone); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMPT: %v", a.name, err))
	}
	a.Stats.addBytes(w.kind, purposeMPTWrite, uint64(a.spec.TPT.MPTEntryBytes))
	return acceptSync
}
