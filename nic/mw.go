package nic

import "github.com/nicsim/nicsim/mtt"

// MW is an NDK_MW: a memory window (docs/ndk.md 2.H). It is a key-table entry
// of kind MW in the TPT; NdkBind work requests bind it to part of a
// registered normal MR, through one QP, with its own rights and a new key
// per bind (5.3, 5.5).
type MW struct {
	a   *Adapter
	pd  *PD
	tok mtt.Token // token as the provider last defined it (rule 50)
	closer
	bound *MR // MR the window is bound to in the NIC (set when a bind commits)
}

// Index is the window's key-table index.
func (w *MW) Index() uint32 { return w.tok.Index() }

// CreateMw is NdkCreateMw (rule 46): a new, unbound window of pd. The
// key-table entry comes from the same firmware-prepared pool as CreateMr
// when the pool has one (inline SUCCESS, no callback); otherwise a firmware
// command of FirmwareCommandNS (PENDING, done later). A full key table, or
// MWsMax windows in existence, is STATUS_INSUFFICIENT_RESOURCES inline.
func (a *Adapter) CreateMw(pd *PD, done func(ctx uint64, status Status, mw *MW), ctx uint64) (Status, *MW) {
	var mw *MW
	st := a.createKeyed(pd, a.nMWs >= a.spec.MWsMax, func() (err error) { mw, err = a.allocMW(pd); return err },
		pendingCall{createMw: done, ctx: ctx, pd: pd})
	return st, mw
}

func (a *Adapter) allocMW(pd *PD) (*MW, error) {
	if a.nMWs >= a.spec.MWsMax {
		return nil, errObjectLimit
	}
	tok, err := a.tpt.Keys().Alloc(mtt.KindMW, pd.handle)
	if err != nil {
		return nil, err
	}
	a.nMWs++
	pd.children++
	mw := &MW{a: a, pd: pd, tok: tok}
	a.mws.set(tok.Index(), mw)
	return mw, nil
}

// GetRemoteTokenFromMw is NdkGetRemoteTokenFromMw: the window's token as
// the last NdkBind post defined it (rule 50, 5.3).
func (a *Adapter) GetRemoteTokenFromMw(mw *MW) uint32 {
	if mw == nil {
		return 0 // names no window
	}
	return uint32(mw.tok)
}

// Bind is NdkBind (docs/ndk.md 2.H, 5.5): a work request that binds mw to
// [va, va+length) of the registered normal MR mr, through qp, with the
// remote rights in flags. The window gets a new key when the call returns
// (rule 50); the NIC gives the entry that key when the bind executes, and a
// bind that is cancelled or fails gives the key back (5.1, settleWR).
//
// Inline failures, in order: INVALID_HANDLE; flags INVALID_PARAMETER (5.2);
// CONNECTION_INVALID (rule 4); a fast-register MR INVALID_DEVICE_REQUEST
// (5.5); an MR that is not registered INVALID_DEVICE_STATE; MR, window and
// QP of different PDs INVALID_PARAMETER; a window not wholly inside the MR,
// of length 0 or above MaxWindowSize INVALID_PARAMETER (rule 48);
// ALLOW_LOCAL_WRITE/ALLOW_REMOTE_WRITE on an MR without
// NDK_MR_FLAG_ALLOW_LOCAL_WRITE ACCESS_VIOLATION (rule 49, 3.3);
// NO_MORE_ENTRIES (5.7). A window that is still bound when the bind
// executes is an error completion STATUS_INVALID_DEVICE_STATE (5.5).
func (a *Adapter) Bind(qp *QP, ctx uint64, mr *MR, mw *MW, va, length uint64, flags OpFlags) Status {
	st := a.checkBind(qp, mr, mw, va, length, flags)
	if st != StatusSuccess {
		return a.inlineFailure(qp, st)
	}
	w := a.newWR(qp, OpBind, kindBind, flags, ctx, 1)
	w.mr, w.mw = mr, mw
	w.tok = mw.tok
	w.rotate = true // rule 50, 5.3: a new key per bind
	// Until the bind settles (errorstate.go, settleWR) the window's token is
	// the key the bind will give it, taken back if the bind has no effect,
	// and the MR counts the window: NdkDeregisterMr is STATUS_DEVICE_BUSY
	// from the post on (rule 28, 5.5).
	w.held = true
	mw.tok = mtt.MakeToken(mw.tok.Index(), mw.tok.Key()+1)
	mr.windows++
	w.baseVA, w.length = va, length
	w.rights = flags.Rights()
	a.submit(qp, flags)
	return StatusSuccess
}

func (a *Adapter) checkBind(qp *QP, mr *MR, mw *MW, va, length uint64, flags OpFlags) Status {
	if mr == nil || mr.closed || mw == nil || mw.closed {
		return StatusInvalidHandle
	}
	if st := checkWR(qp, OpBind, flags); st != StatusSuccess {
		return st
	}
	if mr.fastRegister {
		return StatusInvalidDeviceRequest // 5.5: wrong MR kind
	}
	if mr.reg != regRegistered {
		return StatusInvalidDeviceState
	}
	if mr.pd != mw.pd || qp.pd != mw.pd {
		return StatusInvalidParameter
	}
	switch {
	case length == 0 || length > a.info.MaxWindowSizeBytes:
		return StatusInvalidParameter // rule 48
	case va < mr.va || va+length-1 < va || va+length-1 > mr.va+mr.len-1: // inclusive last bytes (length > 0 here)
		return StatusInvalidParameter // rule 48, 5.5: wholly inside the MR
	}
	if flags&OpAllowLocalWrite != 0 && !mr.flags.LocalWrite() {
		return StatusAccessViolation // rule 49
	}
	if qp.full() {
		return StatusNoMoreEntries
	}
	return StatusSuccess
}

// InvalidateMw is NdkInvalidate of a memory window (rule 54-56): after it
// executes the window's token is dead and the window may be bound again.
// Inline failures: INVALID_HANDLE, flags INVALID_PARAMETER,
// CONNECTION_INVALID, a window of another PD than the QP's
// INVALID_PARAMETER (5.5), NO_MORE_ENTRIES. A window that is not bound when the
// request executes (double invalidate, or already invalidated remotely,
// rule 57) is an error completion STATUS_INVALID_DEVICE_STATE.
func (a *Adapter) InvalidateMw(qp *QP, ctx uint64, mw *MW, flags OpFlags) Status {
	if mw == nil || mw.closed {
		return a.inlineFailure(qp, StatusInvalidHandle)
	}
	return a.postInvalidate(qp, ctx, flags, StatusSuccess, mw.pd, nil, mw, mw.tok)
}

// windowUnbound records in the provider that mw's NIC entry was
// invalidated (locally or remotely).
func (a *Adapter) windowUnbound(mw *MW) {
	if mw == nil || mw.bound == nil {
		return
	}
	mr := mw.bound
	mw.bound = nil
	a.mrWindowGone(mr)
}

// mrWindowGone records that a window bound to mr, or a bind to it posted
// and ended without effect, no longer holds mr.
func (a *Adapter) mrWindowGone(mr *MR) {
	mr.windows--
	if mr.windows == 0 && !mr.fwBusy && mr.closeCB != nil {
		// The MR was closed first (rule 53, 64): its close completes now.
		a.closeMR(mr)
		mr.closeDone()
	}
}
