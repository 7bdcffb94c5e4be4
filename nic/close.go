package nic

import "nicsim/mtt"

// CloseObject is NdkCloseObject for a *PD, *CQ, *QP or *MR (NDK.md 2.K).
// STATUS_SUCCESS means closed, with no callback. STATUS_PENDING means done
// runs exactly once, later, as the object's last callback:
//
//   - a QP with requests the NIC has not retired yet is flushed (rule 63)
//     and closes when the last one is retired;
//   - a PD with open MRs or QPs, or a CQ with open QPs (an antecedent
//     closed first, rule 64) closes when its last successor closes.
//
// Closing an MR frees its key-table entry (its tokens die) and MTT range.
func (a *Adapter) CloseObject(obj any, done RequestCompletion, ctx uint64) Status {
	switch o := obj.(type) {
	case *MR:
		if o == nil || o.closed {
			return StatusInvalidHandle
		}
		o.closed = true
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
