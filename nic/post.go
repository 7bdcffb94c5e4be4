package nic

import (
	"github.com/nicsim/nicsim/mtt"
)

// Posting work requests (docs/ndk.md 2.A, 2.B). What the provider can decide from
// the arguments and its own state fails inline: the call returns the
// status, nothing changes and no CQE follows (rule 3, 5.1). Before any
// inline failure, deferred requests already accepted on the queue are
// indicated to the NIC (rules 13/14, 5.8). A success means posted: the WQE
// is in the SQ ring in host memory and a CQE will follow unless the request
// succeeds with SILENT_SUCCESS.

// FastRegister is NdkFastRegister: register pages (adapter logical
// addresses, PAGE_SIZE each) over the fast-register MR mr, the region
// starting fbo bytes into the first page, length bytes long, addressed from
// baseVA (docs/ndk.md 2.G).
func (a *Adapter) FastRegister(qp *QP, ctx uint64, mr *MR, pages []uint64, fbo uint32, length uint64, baseVA uint64, flags OpFlags) Status {
	if st := a.checkFastRegister(qp, mr, pages, fbo, length, baseVA, flags); st != StatusSuccess {
		return a.inlineFailure(qp, st)
	}
	rights := flags.Rights() // flags validated above
	n := uint32(len(pages))
	inline := n <= a.spec.InlinePageListEntriesMax
	blocks := uint32(1)
	if inline {
		blocks += (n*8 + a.spec.WQEBytes - 1) / a.spec.WQEBytes
	}
	w := a.newWR(qp, OpFastRegister, kindFastRegister, flags, ctx, blocks)
	w.mr = mr
	w.tok = mr.tok
	mr.frSink = flags&OpRDMAReadSink != 0
	w.rotate = a.spec.RotateFastRegisterKey
	if w.rotate {
		// Rule 43, 5.3: the new token is defined when the call returns. If
		// the request is cancelled or fails, it gives the key back when it
		// settles (errorstate.go, settleWR): 5.1, no effect.
		w.held = true
		mr.tok = mtt.MakeToken(mr.tok.Index(), mr.tok.Key()+1)
	}
	w.pages = append(w.pages[:0], pages...)
	w.npages = n
	w.fbo, w.length, w.baseVA = uint64(fbo), length, baseVA
	w.rights = rights
	w.inline = inline
	a.submit(qp, flags)
	return StatusSuccess
}

// checkFastRegister applies docs/ndk.md 2.G and 5.6 at post time.
func (a *Adapter) checkFastRegister(qp *QP, mr *MR, pages []uint64, fbo uint32, length uint64, baseVA uint64, flags OpFlags) Status {
	if mr == nil || mr.closed {
		return StatusInvalidHandle
	}
	if st := checkWR(qp, OpFastRegister, flags); st != StatusSuccess {
		return st
	}
	if !mr.fastRegister {
		return StatusInvalidDeviceRequest // 5.6, rule 16: wrong MR kind
	}
	if !mr.initialized {
		return StatusInvalidDeviceState // 5.6: before NdkInitializeFastRegisterMr
	}
	if mr.pd != qp.pd {
		return StatusInvalidParameter // 5.6: MR and QP of different PDs, as NdkBind (5.5)
	}
	n := uint64(len(pages))
	if n == 0 || n > uint64(mr.initPages) {
		return StatusInvalidParameter // 5.6, rule 35
	}
	for _, p := range pages {
		if p%PageSizeBytes != 0 {
			return StatusInvalidParameter // rule 36
		}
	}
	switch {
	case fbo >= PageSizeBytes: // rule 37
		return StatusInvalidParameter
	case length == 0 || length > n*PageSizeBytes-uint64(fbo): // rule 38
		return StatusInvalidParameter
	case baseVA%PageSizeBytes != uint64(fbo): // rule 39
		return StatusInvalidParameter
	case baseVA+length < baseVA: // the region may not wrap
		return StatusInvalidParameter
	}
	if (flags.RemoteRead() || flags.RemoteWrite()) && !mr.remoteAccess {
		return StatusAccessViolation // rule 40
	}
	if qp.full() {
		return StatusNoMoreEntries // 5.7
	}
	return StatusSuccess
}

// checkWR makes the checks every work request starts with, in order: an
// open QP, the flags (5.2), a connected QP (rule 4).
func checkWR(qp *QP, op OpType, flags OpFlags) Status {
	if qp == nil || qp.closed {
		return StatusInvalidHandle
	}
	if !opFlagsValid(op, flags) {
		return StatusInvalidParameter // ValidateOpFlags says why
	}
	if !qp.connected {
		return StatusConnectionInvalid
	}
	return StatusSuccess
}

// Invalidate is NdkInvalidate of a fast-register MR (docs/ndk.md 2.I); windows
// are invalidated with InvalidateMw. An NdkRegisterMr MR (rule 54) and an MR
// of another PD than the QP's (5.6) are STATUS_INVALID_PARAMETER inline.
func (a *Adapter) Invalidate(qp *QP, ctx uint64, mr *MR, flags OpFlags) Status {
	if mr == nil || mr.closed {
		return a.inlineFailure(qp, StatusInvalidHandle)
	}
	kind := StatusSuccess
	if !mr.fastRegister {
		kind = StatusInvalidParameter // rule 54: never an NdkRegisterMr MR
	}
	return a.postInvalidate(qp, ctx, flags, kind, mr.pd, mr, nil, mr.tok)
}

// postInvalidate posts an Invalidate of tok (mr's or mw's, of PD pd) after
// the checks, in order: QP, flags, connection (rule 4, 55), the object's
// kind (kind), the PDs (5.5, 5.6), a free slot (5.7).
func (a *Adapter) postInvalidate(qp *QP, ctx uint64, flags OpFlags, kind Status, pd *PD, mr *MR, mw *MW, tok mtt.Token) Status {
	st := checkWR(qp, OpInvalidate, flags)
	if st == StatusSuccess {
		st = kind
	}
	if st == StatusSuccess && pd != qp.pd {
		st = StatusInvalidParameter // 5.5, 5.6: object and QP of different PDs, as NdkBind and NdkFastRegister
	}
	if st == StatusSuccess && qp.full() {
		st = StatusNoMoreEntries
	}
	if st != StatusSuccess {
		return a.inlineFailure(qp, st)
	}
	w := a.newWR(qp, OpInvalidate, kindInvalidate, flags, ctx, 1)
	w.mr, w.mw, w.tok = mr, mw, tok
	a.submit(qp, flags)
	return StatusSuccess
}

// inlineFailure indicates the deferred requests of qp (rule 13), then
// returns st.
func (a *Adapter) inlineFailure(qp *QP, st Status) Status {
	if qp != nil && !qp.closed {
		a.ring(qp)
	}
	return st
}

// newWR takes the next SQ slot of qp and places a WQE of blocks basic
// blocks in the ring (a WQE never straddles the ring's end: the provider
// pads to the start, as mlx5 does with a NOP).
func (a *Adapter) newWR(qp *QP, op OpType, k opKind, flags OpFlags, ctx uint64, blocks uint32) *wr {
	w := qp.slot(qp.posted)
	pages := w.pages
	// Cleared in place, then filled: a literal would be built on the stack
	// and copied.
	*w = wr{}
	w.op, w.kind, w.qpn, w.flags, w.ctx, w.blocks, w.pages, w.status = op, k, qp.num, flags, ctx, blocks, pages, StatusSuccess
	if qp.blocks%qp.ringBlocks+uint64(blocks) > qp.ringBlocks {
		qp.blocks += qp.ringBlocks - qp.blocks%qp.ringBlocks
	}
	w.block = qp.blocks
	qp.blocks += uint64(blocks)
	now := a.eng.Now()
	w.tPost = now
	a.Stats.recordPost(k, now)
	a.cores.work(a.cores.core(qp), a.spec.PostWQEBuildPS)
	return w
}

// submit makes the new WR posted and rings the doorbell unless it is
// deferred (5.8): DEFER WRs wait for a later non-DEFER post (one doorbell
// for the chain) or for DeferChainMax.
func (a *Adapter) submit(qp *QP, flags OpFlags) {
	qp.posted++
	if flags&OpDefer != 0 && (a.spec.DeferChainMax == 0 || qp.posted-qp.rung < uint64(a.spec.DeferChainMax)) {
		return
	}
	a.ring(qp)
}

// ring indicates every posted, not yet indicated WR of qp to the NIC: a lone
// WR by WQE-by-MMIO when the adapter allows it, otherwise one doorbell. The
// QP's core executes the store (hostCPU.store), then the write goes to the
// link.
func (a *Adapter) ring(qp *QP) {
	n := qp.posted - qp.rung
	if n == 0 {
		return
	}
	pi := qp.posted
	arg := uint64(qp.num)<<32 | uint64(uint32(pi))
	if n == 1 && a.spec.WQEByMMIO {
		// One write-combined write of the whole WQE: the link sends it as
		// 64 B stores (docs/sources.md 2, BlueFlame).
		w := qp.slot(pi - 1)
		bytes := uint64(w.blocks) * uint64(a.spec.WQEBytes)
		a.cores.store(qp, (bytes+pcieLineBytes-1)/pcieLineBytes, arg|mmioWQEBit)
		a.Stats.addBytes(w.kind, purposeWQE, bytes)
	} else {
		a.cores.store(qp, 0, arg)
		// Charge the doorbell to the operation that rang it.
		a.Stats.addBytes(qp.slot(pi-1).kind, purposeDoorbell, uint64(a.spec.DoorbellBytes))
	}
	qp.rung = pi
}

// pcieLineBytes is one write-combined store: a 64 B cache line.
const pcieLineBytes = 64

// Flush is NdkFlush (docs/ndk.md rule 8, §5.1): every request of the QP
// that the NIC has not begun executing when the call is made completes
// STATUS_CANCELLED, in post order, with no effect (a cancelled FastRegister
// or Bind leaves no valid token), and so does every posted receive; a
// request already executing completes with its own status. The QP is in
// the error state from the call on, so later posts are cancelled too.
//
// The provider also sends the NIC a flush command, an 8 B MMIO write that
// carries the producer index, so requests posted but not yet indicated
// (deferred, or whose doorbell is still on its way) reach the scheduler,
// which completes them STATUS_CANCELLED (rule 15). The model applies the
// QP's state change when the call is made, not when the command arrives:
// a request the NIC picks up in between is cancelled, as rule 8 asks.
func (a *Adapter) Flush(qp *QP) Status {
	if qp == nil || qp.closed {
		return StatusInvalidHandle
	}
	a.qpToError(qp, 0)
	pi := qp.posted
	a.cores.store(qp, 0, flushBit|uint64(qp.num)<<32|uint64(uint32(pi)))
	if pi > qp.rung {
		a.Stats.addBytes(qp.slot(pi-1).kind, purposeDoorbell, uint64(a.spec.DoorbellBytes))
	}
	qp.rung = pi
	return StatusSuccess
}
