package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// RegisterMr is NdkRegisterMr (docs/ndk.md 2.D, seed REGISTER_MR): register
// [chain[0].VirtualAddress, +length) of the MDL chain over the normal MR mr
// with flags. The work takes firmware time, so a call that passes the
// inline checks returns STATUS_PENDING and done runs exactly once (rule 1)
// when the registration is in the NIC; the tokens are valid from then on
// (rule 24). See firmware.go for the command path and its costs. With
// Spec.RegisterMrInline, a call made outside an event handler waits for
// the command instead (the simulated clock runs on meanwhile) and returns
// its status inline, STATUS_SUCCESS, without calling done (rule 1).
//
// Inline failures (nothing changes, no callback): INVALID_HANDLE (closed
// MR); INVALID_DEVICE_REQUEST for a fast-register MR (rule 16, 5.6);
// INVALID_DEVICE_STATE for an MR registered or with a command in flight
// (rule 18); INVALID_PARAMETER for bad flags (5.2), an empty, not virtually
// contiguous or malformed chain (rule 19), length 0, above the chain's
// bytes or above MaxRegistrationSize (rule 20); INSUFFICIENT_RESOURCES when
// no contiguous MTT range is free (rule 1). RDMA_READ_SINK (0x8) is
// accepted and kept (rule 23); this adapter reports
// RDMA_READ_SINK_NOT_REQUIRED unless Spec.ReadSinkRequired is set.
func (a *Adapter) RegisterMr(mr *MR, chain []MDL, length uint64, flags MRFlags, done RequestCompletion, ctx uint64) Status {
	if mr == nil || mr.closed {
		return StatusInvalidHandle
	}
	if mr.fastRegister {
		return StatusInvalidDeviceRequest // rule 16, 5.6
	}
	if mr.reg != regNone || mr.fwBusy {
		return StatusInvalidDeviceState // rule 18
	}
	if st, _ := flags.Validate(); st != StatusSuccess {
		return st // 5.2
	}
	if length > a.spec.MaxRegistrationSizeBytes {
		return StatusInvalidParameter // rule 20
	}
	n, ok := checkChain(chain, length)
	if !ok {
		return StatusInvalidParameter // rules 19, 20
	}
	if done == nil {
		return StatusInvalidParameter
	}
	off, ok := a.allocMTT(uint32(n))
	if !ok {
		return StatusInsufficientResources
	}
	var w *inlineWait // allocated only for a call that waits
	if a.spec.RegisterMrInline && !a.eng.InEvent() {
		w = &inlineWait{}
		done = w.done
	}
	mr.mttOff, mr.mttCount = off, uint32(n)
	mr.reg, mr.fwBusy = regRegistering, true
	mr.flags, mr.va, mr.len, mr.npages = flags, chain[0].VirtualAddress, length, uint32(n)
	f := &a.fw
	id := f.add(fwCmd{kind: fwRegister, mr: mr, done: done, ctx: ctx, npages: uint32(n),
		va: mr.va, len: length, rights: flags.Rights()})
	c := &f.cmds[id]
	c.pages = chainPages(chain, n, c.pages)
	c.mailbox = a.host.alloc(n * 8)
	a.Stats.recordPost(kindRegisterMr, a.eng.Now())
	f.hostWork(sim.Tick(n)*sim.Tick(a.spec.PinPSPerPage), fwEvPinned, id)
	if w != nil {
		for !w.ok && a.eng.Step() {
		}
		if !w.ok {
			panic(fmt.Sprintf("nic: %s: NdkRegisterMr's firmware command never completed", a.name))
		}
		return w.st
	}
	return StatusPending
}

// inlineWait is the completion an NdkRegisterMr that waits (Spec.
// RegisterMrInline) gives its firmware command: it keeps the status.
type inlineWait struct {
	st Status
	ok bool
}

func (w *inlineWait) done(_ uint64, s Status) { w.st, w.ok = s, true }

// DeregisterMr is NdkDeregisterMr (docs/ndk.md 2.E). It returns STATUS_PENDING
// and done runs once, after the firmware has invalidated the MPT entry and
// the provider has unpinned the pages; from the invalidation on, both
// tokens are dead (rule 29).
//
// Inline failures: INVALID_HANDLE; INVALID_DEVICE_REQUEST for a
// fast-register MR (rule 27: those are revoked by NdkInvalidate);
// INVALID_DEVICE_STATE for an MR not registered or with a command in
// flight (rule 26); STATUS_DEVICE_BUSY while a memory window is bound to it,
// or a Bind to it is posted and not settled (rule 28, 5.5: nothing
// changes).
func (a *Adapter) DeregisterMr(mr *MR, done RequestCompletion, ctx uint64) Status {
	if mr == nil || mr.closed {
		return StatusInvalidHandle
	}
	if mr.fastRegister {
		return StatusInvalidDeviceRequest // rule 27
	}
	if mr.reg != regRegistered || mr.fwBusy {
		return StatusInvalidDeviceState // rule 26
	}
	if mr.windows > 0 {
		return StatusDeviceBusy // rule 28, 5.5
	}
	if done == nil {
		return StatusInvalidParameter
	}
	mr.reg, mr.fwBusy = regDeregistering, true
	f := &a.fw
	id := f.add(fwCmd{kind: fwDeregister, mr: mr, done: done, ctx: ctx, npages: mr.npages})
	a.Stats.recordPost(kindDeregisterMr, a.eng.Now())
	f.issue(id)
	return StatusPending
}

// firmwareCompleted ends a RegisterMr or DeregisterMr on the host and calls
// its completion.
func (a *Adapter) firmwareCompleted(c *fwCmd) {
	mr := c.mr
	mr.fwBusy = false
	k := kindRegisterMr
	if c.kind == fwRegister {
		mr.reg = regRegistered
	} else {
		k = kindDeregisterMr
		mr.reg = regNone
		a.freeMTT(mr)
	}
	a.Stats.Ops[k].Completed++
	a.Stats.Ops[k].LastRetire = a.eng.Now()
	c.done(c.ctx, StatusSuccess)
	if mr.closeCB != nil && mr.windows == 0 {
		a.closeMR(mr)
		mr.closeDone()
	}
}
