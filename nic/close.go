package nic

import "github.com/nicsim/nicsim/mtt"

// closer is the close state every NDK object has (docs/ndk.md 2.K).
type closer struct {
	closed   bool
	closeCB  RequestCompletion // the callback of a pending close
	closeCtx uint64
}

// closeLater makes the close pending: done runs once, at closeDone.
func (c *closer) closeLater(done RequestCompletion, ctx uint64) Status {
	if done == nil {
		return StatusInvalidParameter
	}
	c.closed, c.closeCB, c.closeCtx = true, done, ctx
	return StatusPending
}

// closeDone runs the pending close's callback.
func (c *closer) closeDone() {
	cb := c.closeCB
	c.closeCB = nil
	cb(c.closeCtx, StatusSuccess)
}

// CloseObject is NdkCloseObject for a *PD, *CQ, *QP, *MR or *MW (docs/ndk.md 2.K).
// STATUS_SUCCESS means closed, with no callback. STATUS_PENDING means done
// runs exactly once, later, as the object's last callback:
//
//   - a QP with requests the NIC has not retired yet is flushed (rule 63)
//     and closes when the last one is retired;
//   - a PD with open MRs, MWs or QPs, a CQ with open QPs, or an MR with
//     windows bound to it or a Bind to it not settled (an antecedent closed
//     first, rules 53, 64) closes when its last successor closes or the
//     bind ends without effect;
//   - an MR with a RegisterMr/DeregisterMr in flight closes after that
//     request's callback (rule 63).
//
// Closing an MR frees its key-table entry (its tokens die) and MTT range.
func (a *Adapter) CloseObject(obj any, done RequestCompletion, ctx uint64) Status {
	switch o := obj.(type) {
	case *MR:
		if o != nil && !o.closed {
			// A RegisterMr/DeregisterMr in flight (rule 63), or windows bound
			// to it (the MR is their antecedent, rules 53, 64): the close
			// completes after the callback, or when the last window goes.
			if o.fwBusy || o.windows > 0 {
				return o.closeLater(done, ctx)
			}
			o.closed = true
			a.closeMR(o)
			return StatusSuccess
		}
	case *MW:
		if o != nil && !o.closed {
			a.closeMW(o)
			return StatusSuccess
		}
	case *QP:
		if o != nil && !o.closed && o.nicCompleted < o.posted {
			if done == nil {
				return StatusInvalidParameter
			}
			a.Flush(o) // rule 63: closes when the last request is retired
			return o.closeLater(done, ctx)
		}
		if o != nil && !o.closed {
			o.closed = true
			a.qpClosed(o)
			return StatusSuccess
		}
	case *CQ:
		if o != nil && !o.closed {
			return o.closeWhen(o.qps > 0, done, ctx)
		}
	case *PD:
		if o != nil && !o.closed {
			return o.closeWhen(o.children > 0, done, ctx)
		}
	default:
		return StatusInvalidParameter
	}
	return StatusInvalidHandle
}

// closeWhen closes at once, or, while the object has successors, later.
func (c *closer) closeWhen(successors bool, done RequestCompletion, ctx uint64) Status {
	if successors {
		return c.closeLater(done, ctx)
	}
	c.closed = true
	return StatusSuccess
}

// closeMR frees the MR's key-table entry (its tokens die) and MTT range.
func (a *Adapter) closeMR(o *MR) {
	a.nMRs--
	a.freeMTT(o)
	if a.mrs.at(o.Index()) == o {
		a.mrs.set(o.Index(), nil)
	}
	a.releaseEntry(o.Index(), o.pd)
}

// closeMW unbinds the window if it is bound (its token dies) and frees its
// key-table entry.
func (a *Adapter) closeMW(o *MW) {
	a.nMWs--
	o.closed = true
	keys := a.tpt.Keys()
	if e, _ := keys.Entry(o.Index()); e.State == mtt.StateValid {
		if err := keys.Invalidate(mtt.MakeToken(o.Index(), e.Key)); err != nil {
			panic(err)
		}
	}
	a.windowUnbound(o)
	a.mws.set(o.Index(), nil)
	a.releaseEntry(o.Index(), o.pd)
}

// releaseEntry frees key-table entry idx of a closed MR or MW, returns it
// to the pool of prepared entries, and releases the PD.
func (a *Adapter) releaseEntry(idx uint32, pd *PD) {
	keys := a.tpt.Keys()
	if e, ok := keys.Entry(idx); ok && e.State != mtt.StateFree {
		if err := keys.Free(mtt.MakeToken(idx, e.Key)); err != nil {
			panic(err)
		}
	}
	if a.mrPool < a.spec.MRPoolEntries {
		a.mrPool++
	}
	a.childClosed(pd)
}

func (a *Adapter) childClosed(pd *PD) {
	pd.children--
	if pd.children == 0 && pd.closed && pd.closeCB != nil {
		pd.closeDone()
	}
}

func (a *Adapter) qpClosed(qp *QP) {
	a.cqReleased(qp.cq)
	if qp.rcq != qp.cq {
		a.cqReleased(qp.rcq)
	}
	a.childClosed(qp.pd)
}

// cqReleased: a QP using cq closed; a close of cq pending on it completes
// with the last one (rule 64).
func (a *Adapter) cqReleased(cq *CQ) {
	cq.qps--
	if cq.qps == 0 && cq.closed && cq.closeCB != nil {
		cq.closeDone()
	}
}

// qpRetired runs when the completion engine retired requests of a closing
// QP: the close completes once all are retired.
func (a *Adapter) qpRetired(qp *QP) {
	if qp.closeCB == nil || qp.nicCompleted < qp.posted {
		return
	}
	a.qpClosed(qp)
	qp.closeDone()
}
