package mtt

import "fmt"

// Reason is the outcome of a translate check: OK or the precise reason the
// access was refused. The NIC layer maps every refusal of a remote access to
// an initiator error completion STATUS_ACCESS_VIOLATION (docs/ndk.md §5.4; or
// STATUS_REMOTE_RESOURCES by adapter setting) and moves no byte.
type Reason uint8

// Reasons, in the order the checks run (the first failing check is reported).
const (
	OK Reason = iota
	// ReasonZeroLength: length 0. docs/ndk.md §5.4: a zero-length Read or Write
	// moves nothing and checks no token, and succeeds. This check runs first
	// and looks at nothing else, so the caller decides: the data path treats
	// it as success with no page touched; other callers may refuse.
	ReasonZeroLength
	// ReasonIndexOutOfRange: the token's index is beyond the table (a dead
	// or forged token, rule 29/56).
	ReasonIndexOutOfRange
	// ReasonEntryFree: the index belongs to no object (destroyed, rule 29).
	ReasonEntryFree
	// ReasonKeyMismatch: the 8-bit key is not the entry's current key: a
	// stale token after rebind, key rotation or reuse (§5.3, rule 50).
	ReasonKeyMismatch
	// ReasonEntryInvalid: the object exists but is not registered/bound:
	// deregistered (rule 29), invalidated (rules 56, 57), never registered
	// (rule 24), unbound window.
	ReasonEntryInvalid
	// ReasonPDMismatch: the entry's PD differs from the accessing QP's PD.
	ReasonPDMismatch
	// ReasonWindowQPMismatch: a window used through a QP other than the one
	// it was bound through (§5.5, rule 52).
	ReasonWindowQPMismatch
	// ReasonNoLocalWrite: local write without ALLOW_LOCAL_WRITE (rule 41, §1.1).
	ReasonNoLocalWrite
	// ReasonNoRemoteRead: remote read without ALLOW_REMOTE_READ (rule 25).
	ReasonNoRemoteRead
	// ReasonNoRemoteWrite: remote write without ALLOW_REMOTE_WRITE (rule 25).
	ReasonNoRemoteWrite
	// ReasonWrapAround: va+length overflows 64 bits (§5.4).
	ReasonWrapAround
	// ReasonOutOfBounds: [va, va+length) not wholly inside
	// [BaseVA, BaseVA+Length) (rule 21, §5.4, ND ndoverreadwrite).
	ReasonOutOfBounds
	// ReasonBadAccess: an Access value that is not one of the four kinds.
	ReasonBadAccess
	reasonCount
)

var reasonNames = [reasonCount]string{
	"ok", "zero-length", "index-out-of-range", "entry-free", "key-mismatch", "entry-invalid",
	"pd-mismatch", "window-qp-mismatch", "no-local-write", "no-remote-read", "no-remote-write",
	"wrap-around", "out-of-bounds", "bad-access",
}

// String names the reason.
func (r Reason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// ReasonCount is the number of Reason values (for per-reason counters).
const ReasonCount = int(reasonCount)

// Access check inputs that come from the request, not the entry.
type checkArgs struct {
	tok    Token
	pd     uint32
	qpn    uint32
	va     uint64
	length uint64
	access Access
}

// Check runs every protection check of one access against the key table, in
// the order of the Reason constants, and returns the first failure or OK. It
// looks at nothing but the table: it is the functional core the timed
// Translator applies once the key-table entry is on the NIC.
func Check(kt *KeyTable, tok Token, pd, qpn uint32, va, length uint64, access Access) Reason {
	return check(kt, checkArgs{tok, pd, qpn, va, length, access})
}

func check(kt *KeyTable, a checkArgs) Reason {
	if a.length == 0 {
		return ReasonZeroLength
	}
	e := kt.entry(a.tok.Index())
	switch {
	case e == nil:
		return ReasonIndexOutOfRange
	case e.State == StateFree:
		return ReasonEntryFree
	case e.Key != a.tok.Key():
		return ReasonKeyMismatch
	case e.State != StateValid:
		return ReasonEntryInvalid
	case e.PD != a.pd:
		return ReasonPDMismatch
	case e.Kind == KindMW && e.QPN != a.qpn:
		return ReasonWindowQPMismatch
	}
	switch a.access {
	case AccessLocalRead:
	case AccessLocalWrite:
		if e.Rights&RightLocalWrite == 0 {
			return ReasonNoLocalWrite
		}
	case AccessRemoteRead:
		if e.Rights&RightRemoteRead == 0 {
			return ReasonNoRemoteRead
		}
	case AccessRemoteWrite:
		if e.Rights&RightRemoteWrite == 0 {
			return ReasonNoRemoteWrite
		}
	default:
		return ReasonBadAccess
	}
	// Inclusive last bytes (length >= 1 here, and so is a valid entry's):
	// a range or region that ends at the top of the address space, 2^64,
	// does not wrap.
	last := a.va + a.length - 1
	if last < a.va {
		return ReasonWrapAround
	}
	if a.va < e.BaseVA || last > e.BaseVA+e.Length-1 {
		return ReasonOutOfBounds
	}
	return OK
}

// pageSpan returns the MTT entries [first, last] the checked range uses.
func pageSpan(e *Entry, va, length uint64) (first, last uint64) {
	off := va - e.XlateVA + e.FBO
	first = uint64(e.MTTOffset) + off>>e.PageShift
	last = uint64(e.MTTOffset) + (off+length-1)>>e.PageShift
	return first, last
}

// Translate is the untimed translation: Check, then the host address of
// every page the range touches, appended to pages[:0] (page-aligned
// addresses; the range starts at Offset bytes into the first). Nothing is
// returned unless the whole range passed (§5.4).
func Translate(kt *KeyTable, m *MTT, tok Token, pd, qpn uint32, va, length uint64, access Access, pages []uint64) (out []uint64, offset uint64, r Reason) {
	if r = Check(kt, tok, pd, qpn, va, length, access); r != OK {
		return pages[:0], 0, r
	}
	e := kt.entry(tok.Index())
	first, last := pageSpan(e, va, length)
	out = pages[:0]
	for i := first; i <= last; i++ {
		out = append(out, m.Page(i))
	}
	return out, (va - e.XlateVA + e.FBO) & (1<<e.PageShift - 1), OK
}
