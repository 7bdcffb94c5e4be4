package mtt

import (
	"fmt"
	"strings"
)

// Rights is the set of access rights of a key-table entry, mtt's own bit set.
// Local read is always granted and has no bit (NDK.md §1.1, §3.2).
//
// Mapping from NDK flags (NDK.md §1.1, §1.2, §3.1, §5.2):
//
//	right            NDK_MR_FLAG_*            NDK_OP_FLAG_* (FastRegister/Bind)
//	RightLocalWrite  ALLOW_LOCAL_WRITE 0x1    ALLOW_LOCAL_WRITE 0x10
//	RightRemoteRead  ALLOW_REMOTE_READ 0x2    ALLOW_REMOTE_READ 0x08
//	RightRemoteWrite bit 0x4 of 0x5           bit 0x20 of 0x30
//
// A remote-write bit without the matching local-write bit is
// STATUS_INVALID_PARAMETER (NDK.md §5.2); the converters return an error.
type Rights uint8

// Rights bits.
const (
	RightLocalWrite  Rights = 1 << 0
	RightRemoteRead  Rights = 1 << 1
	RightRemoteWrite Rights = 1 << 2
)

// NDK flag values (NDK.md §1.1, §1.2).
const (
	MRFlagAllowLocalWrite  = 0x1
	MRFlagAllowRemoteRead  = 0x2
	MRFlagAllowRemoteWrite = 0x5 // 0x4 | ALLOW_LOCAL_WRITE
	MRFlagRDMAReadSink     = 0x8

	OpFlagAllowRemoteRead  = 0x008
	OpFlagAllowLocalWrite  = 0x010
	OpFlagAllowRemoteWrite = 0x030 // 0x20 | ALLOW_LOCAL_WRITE
)

// RightsFromMRFlags converts NdkRegisterMr flags. Unknown bits and a remote
// write bit (0x4) without LOCAL_WRITE (0x1) are errors (NDK.md §5.2).
func RightsFromMRFlags(flags uint32) (Rights, error) {
	if unknown := flags &^ 0xF; unknown != 0 {
		return 0, fmt.Errorf("mtt: MR flags %#x: unknown bits %#x", flags, unknown)
	}
	var r Rights
	if flags&MRFlagAllowLocalWrite != 0 {
		r |= RightLocalWrite
	}
	if flags&MRFlagAllowRemoteRead != 0 {
		r |= RightRemoteRead
	}
	if flags&0x4 != 0 {
		if flags&MRFlagAllowLocalWrite == 0 {
			return 0, fmt.Errorf("mtt: MR flags %#x: remote write (0x4) without local write (0x1)", flags)
		}
		r |= RightRemoteWrite
	}
	return r, nil
}

// RightsFromOpFlags extracts the rights of a FastRegister or Bind request
// from its operation flags; other flag bits are ignored here (the NIC layer
// checks which flags an operation accepts). A remote-write bit (0x20)
// without LOCAL_WRITE (0x10) is an error (NDK.md §5.2).
func RightsFromOpFlags(flags uint32) (Rights, error) {
	var r Rights
	if flags&OpFlagAllowLocalWrite != 0 {
		r |= RightLocalWrite
	}
	if flags&OpFlagAllowRemoteRead != 0 {
		r |= RightRemoteRead
	}
	if flags&0x20 != 0 {
		if flags&OpFlagAllowLocalWrite == 0 {
			return 0, fmt.Errorf("mtt: operation flags %#x: remote write (0x20) without local write (0x10)", flags)
		}
		r |= RightRemoteWrite
	}
	return r, nil
}

// String lists the rights, e.g. "LW|RR|RW"; "LR" when only local read.
func (r Rights) String() string {
	var parts []string
	if r&RightLocalWrite != 0 {
		parts = append(parts, "LW")
	}
	if r&RightRemoteRead != 0 {
		parts = append(parts, "RR")
	}
	if r&RightRemoteWrite != 0 {
		parts = append(parts, "RW")
	}
	if len(parts) == 0 {
		return "LR"
	}
	return strings.Join(parts, "|")
}

// Access is the kind of a data-path access to be checked.
type Access uint8

// Access kinds.
const (
	AccessLocalRead   Access = iota // always allowed by rights (NDK.md §3.2)
	AccessLocalWrite                // needs RightLocalWrite
	AccessRemoteRead                // needs RightRemoteRead (rule 25)
	AccessRemoteWrite               // needs RightRemoteWrite (rule 25)
)

var accessNames = [...]string{"local-read", "local-write", "remote-read", "remote-write"}

// String names the access kind.
func (a Access) String() string {
	if int(a) < len(accessNames) {
		return accessNames[a]
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}
