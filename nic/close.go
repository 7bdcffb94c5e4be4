package nic

import "github.com/nicsim/nicsim/mtt"

// CloseObject is NdkCloseObject for a *PD, *CQ, *QP, *MR or *MW (docs/ndk.md 2.K).
// STATUS_SUCCESS means closed, with no callback. STATUS_PENDING means done
// runs exactly once, later, as the object's last callback:
//
//   - a QP with requests the NIC has not retired yet is flushed (rule 63)
//     and closes when the last one is retired;
//   - a PD with open MRs, MWs or QPs, a CQ with open QPs, or an MR with
//     windows bound to it (an antecedent closed first, rules 53, 64) closes
//     when its last successor closes;
//   - an MR with a RegisterMr/DeregisterMr in flight closes after that
//     request's callback (rule 63).
//
// Closing an MR frees its key-table entry (its tokens die) and MTT range.
func (a *Adapter) CloseObject(obj any, done RequestCompletion, ctx uint64) Status {
	switch o := obj.(type) {
	case *MR:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		if o.fwBusy || o.windows > 0 {
			// A RegisterMr/DeregisterMr is in flight: the close completes
			// after its callback (rule 63). Windows are bound to it: the MR
			// is their antecedent, the close completes when the last of them
			// is closed or invalidated (rules 53, 64).
			if done == nil {
				return StatusInvalidParameter
			}
			o.closed, o.closeCB, o.closeCtx = true, done, ctx
			return StatusPending
		}
		o.closed = true
		a.closeMR(o)
		return StatusSuccess
	case *MW:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		o.closed = true
		keys := a.tpt.Keys()
		e, _ := keys.Entry(o.Index())
		if e.State == mtt.StateValid {
			// Closing a bound window unbinds it (its token dies).
			if err := keys.Invalidate(mtt.MakeToken(o.Index(), e.Key)); err != nil {
				panic(err)
			}
		}
		a.windowUnbound(o)
		if e.State != mtt.StateFree {
			if err := keys.Free(mtt.MakeToken(o.Index(), e.Key)); err != nil {
				panic(err)
			}
		}
		a.setMW(o.Index(), nil)
		if a.mrPool < a.spec.MRPoolEntries {
			a.mrPool++
		}
		a.childClosed(o.pd)
		return StatusSuccess
	case *QP:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		if o.nicCompleted < o.posted {
			if done == nil {
				return StatusInvalidParameter
			}
			o.closeCB, o.closeCtx = done, ctx
			a.Flush(o)
			o.closed = true
			return StatusPending
		}
		o.closed = true
		a.qpClosed(o)
		return StatusSuccess
	case *CQ:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		if o.qps > 0 {
			if done == nil {
				return StatusInvalidParameter
			}
			o.closed, o.closeCB, o.closeCtx = true, done, ctx
			return StatusPending
		}
		o.closed = true
		return StatusSuccess
	case *PD:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		if o.children > 0 {
			if done == nil {
				return StatusInvalidParameter
			}
			o.closed, o.closeCB, o.closeCtx = true, done, ctx
			return StatusPending
		}
		o.closed = true
		return StatusSuccess
	}
	return StatusInvalidParameter
}

// closeMR frees the MR's key-table entry (its tokens die) and MTT range.
func (a *Adapter) closeMR(o *MR) {
	keys := a.tpt.Keys()
	if e, ok := keys.Entry(o.Index()); ok && e.State != mtt.StateFree {
		if err := keys.Free(mtt.MakeToken(o.Index(), e.Key)); err != nil {
			panic(err)
		}
	}
	a.freeMTT(o)
	if a.mrPool < a.spec.MRPoolEntries {
		a.mrPool++
	}
	if o.Index() < uint32(len(a.mrByIndex)) && a.mrByIndex[o.Index()] == o {
		a.mrByIndex[o.Index()] = nil
	}
	a.childClosed(o.pd)
}

func (a *Adapter) childClosed(pd *PD) {
	pd.children--
	if pd.children == 0 && pd.closed && pd.closeCB != nil {
		cb := pd.closeCB
		pd.closeCB = nil
		cb(pd.closeCtx, StatusSuccess)
	}
}

func (a *Adapter) qpClosed(qp *QP) {
	cq := qp.cq
	cq.qps--
	if cq.qps == 0 && cq.closed && cq.closeCB != nil {
		cb := cq.closeCB
		cq.closeCB = nil
		cb(cq.closeCtx, StatusSuccess)
	}
	a.childClosed(qp.pd)
}

// qpRetired runs when the completion engine retired requests of a closing
// QP: the close completes once all are retired.
func (a *Adapter) qpRetired(qp *QP) {
	if qp.closeCB == nil || qp.nicCompleted < qp.posted {
		return
	}
	cb := qp.closeCB
	qp.closeCB = nil
	a.qpClosed(qp)
	cb(qp.closeCtx, StatusSuccess)
}
