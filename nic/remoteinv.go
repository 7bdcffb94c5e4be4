package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
)

// A SendAndInvalidate's remote invalidation (rule 57): the responder
// checks the token before it places the Send and invalidates it before it
// signals the receive; the key-table change is immediate, and the MPT
// entry's write to ICM takes a TPT write slot like every other
// registration write, waiting for one when none is free.

// canRemoteInvalidate: the token must name a valid window bound to this
// QP, or a valid fast-register MR, of the QP's PD (rule 57, 54).
func (a *Adapter) canRemoteInvalidate(qp *QP, tok mtt.Token) bool {
	e, ok := a.tpt.Keys().Entry(tok.Index())
	if !ok || e.State != mtt.StateValid || e.Key != tok.Key() || e.PD != qp.pd.handle {
		return false
	}
	if e.Kind == mtt.KindMW {
		return e.QPN == qp.num
	}
	// An MR: only a fast-registered one (rule 54: never an NdkRegisterMr MR).
	mr := a.mrs.at(tok.Index())
	return mr != nil && mr.fastRegister
}

// remoteInvalidate invalidates tok in the key table and writes the MPT
// entry (posted; the functional change is immediate), when the TPT has a
// write slot free, else as soon as one frees.
func (a *Adapter) remoteInvalidate(tok mtt.Token) {
	if e, ok := a.tpt.Keys().Entry(tok.Index()); !ok || e.State != mtt.StateValid || e.Key != tok.Key() {
		return // closed or invalidated since the Send was checked: the token is dead already
	}
	if err := a.tpt.Keys().Invalidate(tok); err != nil {
		panic(fmt.Sprintf("nic: %s: remote invalidate: %v", a.name, err))
	}
	a.windowUnbound(a.mws.at(tok.Index()))
	a.resp.writeInvalidation(tok.Index())
	a.Stats.RemoteInvalidations++
}

// writeInvalidation writes the MPT entry of key index idx, which a
// SendAndInvalidate has invalidated, or queues it, behind those queued
// already, until a TPT write slot frees.
func (r *responder) writeInvalidation(idx uint32) {
	if r.invWrites.Len() > 0 || !r.a.tpt.CanWrite() {
		r.invWrites.Push(idx)
		r.a.tptWrites.meterWaits(r.a.eng.Now())
		return
	}
	if err := r.a.tpt.WriteMPT(idx, nil, 0); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMPT: %v", r.a.name, err))
	}
}

// writeSlotFree writes the queued invalidations' MPT entries while TPT
// write slots last. Small enough to inline: most freed slots find none
// queued.
func (r *responder) writeSlotFree() {
	if r.invWrites.Len() > 0 {
		r.writeWaiting()
	}
}

func (r *responder) writeWaiting() {
	for r.invWrites.Len() > 0 && r.a.tpt.CanWrite() {
		if err := r.a.tpt.WriteMPT(r.invWrites.Pop(), nil, 0); err != nil {
			panic(fmt.Sprintf("nic: %s: WriteMPT: %v", r.a.name, err))
		}
	}
	r.a.tptWrites.meterWaits(r.a.eng.Now())
}
