package nic

import (
	"errors"
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// MR is an NDK_MR. A fast-register MR (CreateMr with FastRegister TRUE) is
// registered by NdkFastRegister work requests after
// NdkInitializeFastRegisterMr; its translation and protection state lives in
// the TPT (package mtt), the provider keeps only what software knows.
type MR struct {
	a            *Adapter
	pd           *PD
	fastRegister bool
	tok          mtt.Token // current token as the provider last defined it (rule 43); a FastRegister without effect gives its key back (settleWR)
	initialized  bool
	initPages    uint32
	remoteAccess bool
	mttOff       uint32
	mttCount     uint32
	closer

	// Normal MRs (NdkRegisterMr).
	reg     regState
	flags   MRFlags
	va, len uint64
	npages  uint32
	fwBusy  bool // a firmware command of this MR is in flight
	frSink  bool // the last FastRegister post asked for RDMA_READ_SINK
	windows int  // windows bound to this MR, and binds to it posted and not settled (docs/ndk.md 5.5: deregister is DEVICE_BUSY)
}

// regState is the registration state of a normal MR as the provider knows it.
type regState uint8

const (
	regNone regState = iota
	regRegistering
	regRegistered
	regDeregistering
)

// FastRegister reports the kind given to NdkCreateMr.
func (m *MR) FastRegister() bool { return m.fastRegister }

// Index is the MR's key-table index.
func (m *MR) Index() uint32 { return m.tok.Index() }

// CreateMr is NdkCreateMr (docs/ndk.md 2.C, seed CREATE_MR). The MR's key-table
// entry is allocated in the TPT and starts invalid.
//
// Inline or pending, by a documented rule: the provider keeps a pool of
// MRPoolEntries key-table entries that firmware prepared ahead (the mlx5
// mkey cache, docs/sources.md 4). With the pool not empty the call takes one and
// returns STATUS_SUCCESS with the MR (no callback). With the pool empty it
// issues a firmware command and returns STATUS_PENDING; done exactly once,
// when the command has been through the firmware's queue (FirmwareCommandNS
// of firmware work, one command at a time, then MSI-X), with the MR or
// STATUS_INSUFFICIENT_RESOURCES
// (rules 1, 2, 17). A full key table fails inline with
// STATUS_INSUFFICIENT_RESOURCES.
func (a *Adapter) CreateMr(pd *PD, fastRegister bool, done CreateCompletion, ctx uint64) (Status, *MR) {
	var mr *MR
	st := a.createKeyed(pd, a.nMRs >= a.spec.MRsMax, func() (err error) { mr, err = a.allocMR(pd, fastRegister); return err },
		pendingCall{create: done, ctx: ctx, pd: pd, fast: fastRegister})
	return st, mr
}

// createKeyed is CreateMr and CreateMw: a full key table or the adapter's
// limit of objects of the kind (atLimit) fails inline, an entry from the
// pool is taken inline (alloc), otherwise a firmware command makes the call
// pending (c, whose callback must be set).
func (a *Adapter) createKeyed(pd *PD, atLimit bool, alloc func() error, c pendingCall) Status {
	if pd == nil || pd.closed {
		return StatusInvalidHandle
	}
	if atLimit || a.tpt.Keys().FreeEntries() == 0 {
		return StatusInsufficientResources
	}
	if a.mrPool > 0 {
		if alloc() != nil {
			return StatusInsufficientResources
		}
		a.mrPool--
		return StatusSuccess
	}
	if c.create == nil && c.createMw == nil {
		return StatusInvalidParameter
	}
	c.pd.children++ // the pending object holds the PD
	a.fw.create(a.calls.add(c))
	return StatusPending
}

// errObjectLimit: MRsMax MRs or MWsMax windows exist already.
var errObjectLimit = errors.New("nic: the adapter's limit of objects of this kind is reached")

func (a *Adapter) allocMR(pd *PD, fast bool) (*MR, error) {
	if a.nMRs >= a.spec.MRsMax {
		return nil, errObjectLimit
	}
	tok, err := a.tpt.Keys().Alloc(mtt.KindMR, pd.handle)
	if err != nil {
		return nil, err
	}
	a.nMRs++
	pd.children++
	mr := &MR{a: a, pd: pd, fastRegister: fast, tok: tok}
	a.mrs.set(tok.Index(), mr)
	return mr, nil
}

// byIndex maps key-table indexes to the MR or MW objects that own them.
type byIndex[T any] []*T

func (t *byIndex[T]) set(idx uint32, o *T) {
	for uint32(len(*t)) <= idx {
		*t = append(*t, nil)
	}
	(*t)[idx] = o
}

// at returns the object of index idx, or nil.
func (t byIndex[T]) at(idx uint32) *T {
	if idx < uint32(len(t)) {
		return t[idx]
	}
	return nil
}

// pendingCalls are the object calls pending on the NIC: CreateMr and
// CreateMw waiting for a firmware command, InitializeFastRegisterMr waiting
// for its MPT write.
type pendingCalls struct {
	a       *Adapter
	calls   []pendingCall
	free    []int         // slots of calls not used
	waiting sim.FIFO[int] // initialisations waiting for a TPT write slot
}

type pendingCall struct {
	create   CreateCompletion
	createMw func(ctx uint64, status Status, mw *MW)
	request  RequestCompletion
	ctx      uint64
	pd       *PD
	fast     bool
	mr       *MR
	used     bool
}

// Events of pendingCalls.Handle.
const (
	callEvInitDone = 2 << evShift // MPT write of an initialisation left the NIC: call id
)

var _ sim.Handler = (*pendingCalls)(nil)

func (p *pendingCalls) add(c pendingCall) int {
	i := claim(&p.calls, &p.free)
	c.used = true
	p.calls[i] = c
	return i
}

// claim returns a slot of *s that is not used: the last one freed (put
// back on *free), or a new one, so a million calls pending at once cost no
// search.
func claim[T any](s *[]T, free *[]int) int {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	*s = append(*s, *new(T))
	return len(*s) - 1
}

func (p *pendingCalls) take(id int) pendingCall {
	c := p.calls[id]
	p.calls[id] = pendingCall{}
	p.free = append(p.free, id)
	return c
}

// Handle ends a pending initialisation: its MPT write is visible in host
// memory.
func (p *pendingCalls) Handle(now sim.Tick, arg uint64) {
	c := p.take(int(arg & evMask))
	c.request(c.ctx, StatusSuccess)
}

// writeInitMPT writes the MR's MPT entry for pending initialisation id, or
// waits for a TPT write slot.
func (p *pendingCalls) writeInitMPT(id int) {
	a := p.a
	if !a.tpt.CanWrite() {
		p.waiting.Push(id)
		a.tptWrites.meterWaits(a.eng.Now())
		return
	}
	if err := a.tpt.WriteMPT(p.calls[id].mr.Index(), p, callEvInitDone|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMPT: %v", a.name, err))
	}
	a.Stats.InitMPTWrites++
}

// writeSlotFree writes waiting initialisations while TPT write slots last.
// Small enough to inline: most freed slots find none waiting.
func (p *pendingCalls) writeSlotFree() {
	if p.waiting.Len() > 0 {
		p.writeWaiting()
	}
}

func (p *pendingCalls) writeWaiting() {
	for p.waiting.Len() > 0 && p.a.tpt.CanWrite() {
		id := p.waiting.Peek()
		p.waiting.Drop()
		p.writeInitMPT(id)
	}
	p.a.tptWrites.meterWaits(p.a.eng.Now())
}

// firmwareDone ends a CreateMr or CreateMw whose firmware command is done.
func (a *Adapter) firmwareDone(p pendingCall) {
	p.pd.children--
	st := StatusSuccess
	if p.createMw != nil {
		mw, err := a.allocMW(p.pd)
		if err != nil {
			st = StatusInsufficientResources
		}
		p.createMw(p.ctx, st, mw)
		return
	}
	mr, err := a.allocMR(p.pd, p.fast)
	if err != nil {
		st = StatusInsufficientResources
	}
	p.create(p.ctx, st, mr)
}

// InitializeFastRegisterMr is NdkInitializeFastRegisterMr (docs/ndk.md 2.F).
// Inline failures: wrong MR kind STATUS_INVALID_DEVICE_REQUEST (rule 30,
// 5.6); pageCount above FRMRPageCount STATUS_IMPLEMENTATION_LIMIT (rule 31);
// no contiguous MTT range STATUS_INSUFFICIENT_RESOURCES; an MR that is
// currently registered STATUS_INVALID_DEVICE_STATE.
//
// Inline or pending, by a documented rule: the NIC must learn the MR's MTT
// range and limits through a write of its MPT entry to ICM when the call
// changes them (first call, or a different page count or RemoteAccess);
// then the call returns STATUS_PENDING and done runs once, when the write
// has left the NIC. Repeating the call with the same arguments (rule 33)
// needs no hardware work and returns STATUS_SUCCESS inline. FastRegister
// may be posted as soon as the call returns (rule 34).
func (a *Adapter) InitializeFastRegisterMr(mr *MR, pageCount uint32, remoteAccess bool, done RequestCompletion, ctx uint64) Status {
	if mr == nil || mr.closed {
		return StatusInvalidHandle
	}
	if !mr.fastRegister {
		return StatusInvalidDeviceRequest
	}
	if pageCount == 0 {
		return StatusInvalidParameter
	}
	if pageCount > a.spec.FRMRPageCount {
		return StatusImplementationLimit
	}
	if e, _ := a.tpt.Keys().Entry(mr.Index()); e.State == mtt.StateValid {
		return StatusInvalidDeviceState
	}
	if mr.initialized && mr.initPages == pageCount && mr.remoteAccess == remoteAccess {
		return StatusSuccess
	}
	if done == nil {
		return StatusInvalidParameter
	}
	if !mr.initialized || mr.mttCount != pageCount {
		off, ok := a.allocMTT(pageCount)
		if !ok {
			return StatusInsufficientResources
		}
		if mr.initialized {
			a.freeMTT(mr)
		}
		mr.mttOff, mr.mttCount = off, pageCount
	}
	mr.initialized, mr.initPages, mr.remoteAccess = true, pageCount, remoteAccess
	a.calls.writeInitMPT(a.calls.add(pendingCall{request: done, ctx: ctx, mr: mr}))
	return StatusPending
}

// allocMTT takes a range of n MTT entries; false when no free range is
// long enough (STATUS_INSUFFICIENT_RESOURCES).
func (a *Adapter) allocMTT(n uint32) (uint32, bool) {
	off, err := a.tpt.MTT().Alloc(n)
	if err != nil && !errors.Is(err, mtt.ErrNoSpace) {
		panic(fmt.Sprintf("nic: %s: MTT alloc: %v", a.name, err))
	}
	return off, err == nil
}

func (a *Adapter) freeMTT(mr *MR) {
	if mr.mttCount == 0 {
		return
	}
	if err := a.tpt.MTT().Free(mr.mttOff, mr.mttCount); err != nil {
		panic(fmt.Sprintf("nic: %s: MTT free: %v", a.name, err))
	}
	mr.mttOff, mr.mttCount = 0, 0
}

// GetRemoteTokenFromMr is NdkGetRemoteTokenFromMr: the MR's token as the
// last FastRegister post defined it (rule 43, 5.3). Tokens are 24-bit index
// and 8-bit key.
func (a *Adapter) GetRemoteTokenFromMr(mr *MR) uint32 { return mrToken(mr) }

// GetLocalTokenFromMr is NdkGetLocalTokenFromMr. The model uses one key per
// MR entry, so the local token equals the remote token (as mlx5 lkey/rkey
// of an mkey).
func (a *Adapter) GetLocalTokenFromMr(mr *MR) uint32 { return mrToken(mr) }

// mrToken is an MR's token; 0, which names no MR, for a nil one.
func mrToken(mr *MR) uint32 {
	if mr == nil {
		return 0
	}
	return uint32(mr.tok)
}
