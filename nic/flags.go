package nic

import (
	"fmt"
	"strings"

	"github.com/nicsim/nicsim/mtt"
)

// MRFlags are NdkRegisterMr's NDK_MR_FLAG_* bits (docs/ndk.md 1.1, source H).
type MRFlags uint32

// NDK_MR_FLAG_* values. ALLOW_REMOTE_WRITE is 0x5 = 0x4 | ALLOW_LOCAL_WRITE
// (docs/ndk.md 3.1): remote write is detected by bit 0x4.
const (
	MRAllowLocalRead   MRFlags = 0x0 // implicit: local read is always granted
	MRAllowLocalWrite  MRFlags = 0x1
	MRAllowRemoteRead  MRFlags = 0x2
	MRAllowRemoteWrite MRFlags = 0x5
	MRRDMAReadSink     MRFlags = 0x8

	mrRemoteWriteBit MRFlags = 0x4
	mrKnown                  = MRAllowLocalWrite | MRAllowRemoteRead | mrRemoteWriteBit | MRRDMAReadSink
)

// Validate applies docs/ndk.md 5.2: unknown bits and a remote-write bit without
// the local-write bit are STATUS_INVALID_PARAMETER.
func (f MRFlags) Validate() (Status, error) {
	if u := f &^ mrKnown; u != 0 {
		return StatusInvalidParameter, fmt.Errorf("MR flags 0x%X: unknown bits 0x%X", uint32(f), uint32(u))
	}
	if f&mrRemoteWriteBit != 0 && f&MRAllowLocalWrite == 0 {
		return StatusInvalidParameter, fmt.Errorf("MR flags 0x%X: remote write (0x4) needs local write (0x1); use NDK_MR_FLAG_ALLOW_REMOTE_WRITE = 0x5", uint32(f))
	}
	return StatusSuccess, nil
}

// LocalWrite, RemoteRead, RemoteWrite and ReadSink report the rights granted.
func (f MRFlags) LocalWrite() bool  { return f&MRAllowLocalWrite != 0 }
func (f MRFlags) RemoteRead() bool  { return f&MRAllowRemoteRead != 0 }
func (f MRFlags) RemoteWrite() bool { return f&mrRemoteWriteBit != 0 }
func (f MRFlags) ReadSink() bool    { return f&MRRDMAReadSink != 0 }

// Rights maps the flags to the key table's rights (docs/ndk.md 1.1, 3.1, 3.2:
// local read is implicit; remote write is bit 0x4). Call Validate first.
func (f MRFlags) Rights() mtt.Rights { return rights(f.LocalWrite(), f.RemoteRead(), f.RemoteWrite()) }

// rights builds the key table's rights from the three NDK rights bits.
func rights(localWrite, remoteRead, remoteWrite bool) mtt.Rights {
	var r mtt.Rights
	if localWrite {
		r |= mtt.RightLocalWrite
	}
	if remoteRead {
		r |= mtt.RightRemoteRead
	}
	if remoteWrite {
		r |= mtt.RightRemoteWrite
	}
	return r
}

// String lists the flag names, for logs and scenario output.
func (f MRFlags) String() string {
	var parts []string
	if f&mrRemoteWriteBit != 0 {
		parts = append(parts, "ALLOW_REMOTE_WRITE")
	} else if f&MRAllowLocalWrite != 0 {
		parts = append(parts, "ALLOW_LOCAL_WRITE")
	}
	if f&MRAllowRemoteRead != 0 {
		parts = append(parts, "ALLOW_REMOTE_READ")
	}
	if f&MRRDMAReadSink != 0 {
		parts = append(parts, "RDMA_READ_SINK")
	}
	if u := f &^ mrKnown; u != 0 {
		parts = append(parts, fmt.Sprintf("0x%X", uint32(u)))
	}
	if len(parts) == 0 {
		return "ALLOW_LOCAL_READ"
	}
	return strings.Join(parts, "|")
}

// OpFlags are the NDK_OP_FLAG_* bits of work requests (docs/ndk.md 1.2, source H).
type OpFlags uint32

// NDK_OP_FLAG_* values. ALLOW_REMOTE_WRITE is 0x30 = 0x20 | ALLOW_LOCAL_WRITE.
const (
	OpSilentSuccess           OpFlags = 0x001
	OpReadFence               OpFlags = 0x002
	OpSendAndSolicitEvent     OpFlags = 0x004
	OpAllowRemoteRead         OpFlags = 0x008
	OpAllowLocalWrite         OpFlags = 0x010
	OpAllowRemoteWrite        OpFlags = 0x030
	OpInline                  OpFlags = 0x040
	OpRDMAReadSink            OpFlags = 0x080
	OpRDMAReadLocalInvalidate OpFlags = 0x100
	OpDefer                   OpFlags = 0x200
	opRemoteWriteBit          OpFlags = 0x020
	opFlagCount                       = 10
)

var opFlagNames = [opFlagCount]struct {
	f    OpFlags
	name string
}{
	{OpSilentSuccess, "SILENT_SUCCESS"}, {OpReadFence, "READ_FENCE"},
	{OpSendAndSolicitEvent, "SEND_AND_SOLICIT_EVENT"}, {OpAllowRemoteRead, "ALLOW_REMOTE_READ"},
	{OpAllowLocalWrite, "ALLOW_LOCAL_WRITE"}, {opRemoteWriteBit, "ALLOW_REMOTE_WRITE(0x20)"},
	{OpInline, "INLINE"}, {OpRDMAReadSink, "RDMA_READ_SINK"},
	{OpRDMAReadLocalInvalidate, "RDMA_READ_LOCAL_INVALIDATE"}, {OpDefer, "DEFER"},
}

// String lists the flag names.
func (f OpFlags) String() string {
	var parts []string
	rest := f
	if f&OpAllowRemoteWrite == OpAllowRemoteWrite {
		parts = append(parts, "ALLOW_REMOTE_WRITE")
		rest &^= OpAllowRemoteWrite
	}
	for _, n := range opFlagNames {
		if rest&n.f != 0 {
			parts = append(parts, n.name)
			rest &^= n.f
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%X", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// Has reports whether every bit of g is set.
func (f OpFlags) Has(g OpFlags) bool { return f&g == g }

// RemoteWrite reports the remote-write bit (0x20).
func (f OpFlags) RemoteWrite() bool { return f&opRemoteWriteBit != 0 }

// RemoteRead reports ALLOW_REMOTE_READ.
func (f OpFlags) RemoteRead() bool { return f&OpAllowRemoteRead != 0 }

// LocalWrite reports ALLOW_LOCAL_WRITE.
func (f OpFlags) LocalWrite() bool { return f&OpAllowLocalWrite != 0 }

// Rights maps a FastRegister's or Bind's flags to the key table's rights
// (docs/ndk.md 1.2, 3.1: remote write is bit 0x20). Call ValidateOpFlags first.
func (f OpFlags) Rights() mtt.Rights { return rights(f.LocalWrite(), f.RemoteRead(), f.RemoteWrite()) }

// acceptedOpFlags is, per operation, the set of flags its documentation
// accepts (docs/ndk.md 1.2; RDMA_READ_SINK on FastRegister per docs/ndk.md
// 3.6), and whether the operation takes flags at all. A switch, not a map:
// every post asks it.
func acceptedOpFlags(op OpType) (OpFlags, bool) {
	switch op {
	case OpFastRegister:
		return OpSilentSuccess | OpReadFence | OpAllowRemoteRead | OpAllowRemoteWrite | OpDefer | OpRDMAReadSink, true
	case OpBind:
		return OpSilentSuccess | OpReadFence | OpAllowRemoteRead | OpAllowRemoteWrite | OpDefer, true
	case OpInvalidate:
		return OpSilentSuccess | OpReadFence | OpDefer, true
	case OpSend:
		return OpSilentSuccess | OpReadFence | OpSendAndSolicitEvent | OpInline | OpDefer, true
	case OpRead:
		return OpSilentSuccess | OpReadFence | OpRDMAReadLocalInvalidate | OpDefer, true
	case OpWrite:
		return OpSilentSuccess | OpReadFence | OpDefer, true
	case OpReceive:
		return 0, true // DEFER is never valid on Receive
	}
	return 0, false
}

// opFlagsValid reports whether ValidateOpFlags accepts f for op, without
// the reason it would give otherwise: what every post asks.
func opFlagsValid(op OpType, f OpFlags) bool {
	ok, known := acceptedOpFlags(op)
	return known && f&^ok == 0 && (f&opRemoteWriteBit == 0 || f&OpAllowLocalWrite != 0) && !localWriteAlone(op, f)
}

// localWriteAlone reports the local-write bit 0x10 without the remote-write
// bit 0x20 on an operation that accepts it only as part of
// ALLOW_REMOTE_WRITE (0x30): NdkBind, whose accepted flags (docs/ndk.md
// 1.2) include ALLOW_REMOTE_WRITE but not ALLOW_LOCAL_WRITE. 0x10 alone
// is STATUS_INVALID_PARAMETER there (docs/ndk.md 5.2).
func localWriteAlone(op OpType, f OpFlags) bool {
	return op == OpBind && f&OpAllowLocalWrite != 0 && f&opRemoteWriteBit == 0
}

// ValidateOpFlags applies docs/ndk.md 1.2 and 5.2 to a work request's flags:
// unknown bits for the operation, a remote-write bit without the
// local-write bit, and on NdkBind the local-write bit without the
// remote-write bit, are STATUS_INVALID_PARAMETER inline.
func ValidateOpFlags(op OpType, f OpFlags) (Status, error) {
	ok, known := acceptedOpFlags(op)
	if !known {
		return StatusInvalidParameter, fmt.Errorf("operation %v takes no work-request flags", op)
	}
	if u := f &^ ok; u != 0 {
		return StatusInvalidParameter, fmt.Errorf("%v: flags %v include 0x%X, not accepted by this operation (accepted: %v)", op, f, uint32(u), ok)
	}
	if f&opRemoteWriteBit != 0 && f&OpAllowLocalWrite == 0 {
		return StatusInvalidParameter, fmt.Errorf("%v: flags %v: remote write (0x20) needs local write (0x10); use NDK_OP_FLAG_ALLOW_REMOTE_WRITE = 0x30", op, f)
	}
	if localWriteAlone(op, f) {
		return StatusInvalidParameter, fmt.Errorf("%v: flags %v: ALLOW_LOCAL_WRITE (0x10) is accepted only as part of ALLOW_REMOTE_WRITE (0x30)", op, f)
	}
	return StatusSuccess, nil
}
