//go:build reverseties

package sim

// SameTimeReversed is true in builds with the reverseties tag, a check
// build: events of one time and priority run last scheduled first. Such
// events happen at one instant, so either order is a valid run of the
// model; a figure that moves between the two is decided by the order, not
// by the hardware modelled (docs/accuracy.md, section 8).
const SameTimeReversed = true

// The sequence numbers count down from the largest a key holds (seqStep
// wraps), so that a key taken later sorts first among those of its time
// and priority; seq^seqXor is the count of keys taken so far, which the
// overflow guard and Stop test.
const (
	seqInit uint64 = 1<<seqBits - 1
	seqStep uint64 = 1<<64 - 1
	seqXor  uint64 = seqInit
)
