//go:build !reverseties

package sim

// SameTimeReversed is false in ordinary builds: events of one time and
// priority run in the order they were scheduled (docs/kernel.md, "Events").
const SameTimeReversed = false

// The sequence numbers count up from 1 (seqStep); seqXor, which turns one
// into the count of keys taken so far, is nothing here.
const (
	seqInit uint64 = 0
	seqStep uint64 = 1
	seqXor  uint64 = 0
)
