package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// validate is the check the NIC makes when it executes a request, against
// the state only the hardware sees (docs/ndk.md 5.1): the QP's state, READ_FENCE,
// and the key-table entry of the target MR.
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
//     requests in flight on another engine waits until they commit.
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
// An error puts the QP in the error state; every later request of the QP
// then completes with STATUS_CANCELLED, in post order.
func (a *Adapter) validate(s *stage, qp *QP, w *wr, now sim.Tick) acceptResult {
	e := s.eng
	if qp.err {
		w.status, w.skip = StatusCancelled, true
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
	idx := w.tok.Index()
	hz := &a.hazards[idx]
	if hz.n > 0 && hz.engine != e.idx {
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
	var valid bool
	var key uint8
	if hz.n > 0 {
		valid, key = hz.valid, hz.key
	} else {
		ent, ok := a.tpt.Keys().Entry(idx)
		if !ok || ent.State == mtt.StateFree {
			key = w.tok.Key() + 1 // no entry: any token is stale
		} else {
			valid, key = ent.State == mtt.StateValid, ent.Key
		}
	}
	status := StatusSuccess
	switch {
	case key != w.tok.Key():
		status = StatusInvalidDeviceState
	case w.op == OpFastRegister && valid:
		status = StatusInvalidDeviceState
	case w.op == OpBind && valid:
		status = StatusInvalidDeviceState // 5.5: invalidate before rebinding
	case w.op == OpInvalidate && !valid:
		status = StatusInvalidDeviceState
	}
	result := acceptSync
	if readMPT {
		slot := s.nextSlot()
		r := &e.mptReq[slot]
		*r = mtt.Request{Token: w.tok, Pages: r.Pages}
		if err := a.tpt.ReadMPT(r, a, evMPTRead|uint64(e.idx)<<32|uint64(slot)); err != nil {
			panic(fmt.Sprintf("nic: %s: MPT read refused after CanAccept: %v", s.name, err))
		}
		a.Stats.MPTReads++
		result = acceptAsync
	}
	if status != StatusSuccess {
		w.status, w.skip = status, true
		qp.err = true
		a.Stats.ErrorCompletions++
		a.sched.activate(qp) // flush what is not fetched yet
		return result
	}
	hz.n++
	hz.engine = e.idx
	hz.valid = w.op == OpFastRegister || w.op == OpBind
	if w.rotate {
		key++
	}
	hz.key = key
	return result
}

// hazard is the scoreboard entry of one key-table index: requests past
// validate and not yet committed, the engine they run on, and the state
// (validity, key) they will leave.
type hazard struct {
	n       uint16
	engine  uint32
	valid   bool
	key     uint8
	waiters bool // a request on another engine waits
}

// commit releases one in-flight request of index idx (MPT update).
func (a *Adapter) commitHazard(idx uint32) {
	hz := &a.hazards[idx]
	hz.n--
	if hz.n == 0 && hz.waiters {
		hz.waiters = false
		for _, x := range a.engines {
			x.validate.drv.Wake()
		}
	}
}
