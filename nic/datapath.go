package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
)

// SGE is NDK_SGE: a local buffer named by its virtual address, length and
// the local token of the MR (or window) that covers it. The adapter
// reports one SGE per request (MaxInitiatorRequestSge = 1).
type SGE struct {
	VirtualAddress uint64
	Length         uint32
	Token          uint32
}

// ConnectQPs connects a and b, which must sit on the two adapters of one
// wire (NdkConnect/NdkAccept shortened to their effect: both QPs are
// connected and know their peer).
//
// The error of a refused connection is a *StatusError: a nil QP, or QPs not
// on the two adapters of one wire, are STATUS_INVALID_PARAMETER; a closed
// QP is STATUS_INVALID_HANDLE; a QP already connected (or in error) is
// STATUS_INVALID_DEVICE_STATE. A refusal changes nothing.
func ConnectQPs(a, b *QP) error {
	refuse := func(st Status, msg string) error { return &StatusError{Status: st, Msg: "ConnectQPs: " + msg} }
	switch {
	case a == nil || b == nil || a.a.wire == nil || a.a.wire != b.a.wire || a.a == b.a:
		return refuse(StatusInvalidParameter, "the QPs must be on the two adapters of one wire")
	case a.closed || b.closed:
		return refuse(StatusInvalidHandle, "a QP is closed")
	case a.connected || b.connected || a.err || b.err:
		return refuse(StatusInvalidDeviceState, "a QP is already connected")
	}
	a.connected, b.connected = true, true
	a.peer, b.peer = b.num, a.num
	a.hasPeer, b.hasPeer = true, true
	return nil
}

// Mem is the host memory behind this adapter (the data the data path
// moves).
func (a *Adapter) Mem() *HostMemory { return a.mem }

// Write is NdkWrite: write the local buffer sge to [remoteVA, +sge.Length)
// of the peer, under remoteToken (docs/ndk.md 2.A, 5.4).
func (a *Adapter) Write(qp *QP, ctx uint64, sge SGE, remoteVA uint64, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpWrite, kindWrite, ctx, sge, remoteVA, remoteToken, false, flags)
}

// Read is NdkRead: read [remoteVA, +sge.Length) of the peer into the local
// buffer sge.
func (a *Adapter) Read(qp *QP, ctx uint64, sge SGE, remoteVA uint64, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpRead, kindRead, ctx, sge, remoteVA, remoteToken, false, flags)
}

// Send is NdkSend: the local buffer sge goes to the peer's next posted
// receive.
func (a *Adapter) Send(qp *QP, ctx uint64, sge SGE, flags OpFlags) Status {
	return a.postData(qp, OpSend, kindSend, ctx, sge, 0, 0, false, flags)
}

// SendAndInvalidate is NdkSendAndInvalidate: a Send after which the peer
// invalidates remoteToken before it signals the receive (rule 57); the
// initiator's CQE has Type Send.
func (a *Adapter) SendAndInvalidate(qp *QP, ctx uint64, sge SGE, remoteToken uint32, flags OpFlags) Status {
	return a.postData(qp, OpSend, kindSend, ctx, sge, 0, remoteToken, true, flags)
}

func (a *Adapter) postData(qp *QP, op OpType, k opKind, ctx uint64, sge SGE, rva uint64, rtok uint32, inv bool, flags OpFlags) Status {
	st := checkWR(qp, op, flags)
	switch {
	case st != StatusSuccess:
	case !qp.hasPeer:
		st = StatusConnectionInvalid // rule 4
	case op == OpSend && flags&OpInline != 0 && sge.Length > a.info.MaxInlineDataSizeBytes:
		st = StatusInvalidParameter
	case qp.full():
		st = StatusNoMoreEntries // 5.7
	}
	if st != StatusSuccess {
		return a.inlineFailure(qp, st)
	}
	w := a.newWR(qp, op, k, flags, ctx, 1)
	w.sge, w.remoteVA, w.remoteTok, w.inv = sge, rva, rtok, inv
	a.submit(qp, flags)
	return StatusSuccess
}

// readSink reports whether the local token names an MR registered as an
// RDMA Read sink (rule 23).
func (a *Adapter) readSink(tok uint32) bool {
	mr := a.mrs.at(mtt.Token(tok).Index())
	if mr == nil {
		return false
	}
	if mr.fastRegister {
		return mr.frSink
	}
	return mr.flags.ReadSink()
}

func isData(op OpType) bool { return op == OpSend || op == OpRead || op == OpWrite }

// StatusError is an error of a call that has no status return of its own
// (ConnectQPs): the NDK status it stands for, and why.
type StatusError struct {
	Status Status
	Msg    string
}

func (e *StatusError) Error() string { return fmt.Sprintf("nic: %s: %s", e.Msg, e.Status) }
