package mtt

import (
	"fmt"
	"strings"
)

// Rights is the set of access rights of a key-table entry, mtt's own bit set.
// Local read is always granted and has no bit (docs/ndk.md §1.1, §3.2).
//
// The NDK flag values (NDK_MR_FLAG_*, NDK_OP_FLAG_*) and their mapping to
// these bits belong to the provider: nic.MRFlags.Rights and
// nic.OpFlags.Rights.
type Rights uint8

// Rights bits.
const (
	RightLocalWrite  Rights = 1 << 0
	RightRemoteRead  Rights = 1 << 1
	RightRemoteWrite Rights = 1 << 2
)

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
	AccessLocalRead   Access = iota // always allowed by rights (docs/ndk.md §3.2)
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
