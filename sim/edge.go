package sim

import "math/bits"

// edgeTest tells whether a time is an edge of a clock, a multiple of its
// period, without a division: for a period p = m*2^k with m odd, t is a
// multiple of p exactly when t*inv, rotated right by k bits, is at most
// (2^64-1)/p, inv being m's inverse modulo 2^64 (the divisibility test
// compilers use for constant divisors; Hacker's Delight, 2nd ed., §10-17).
type edgeTest struct {
	inv   uint64
	limit uint64
	shift int
}

// newEdgeTest returns the test for period p (p > 0; for 0, every time is
// an edge).
func newEdgeTest(p Tick) edgeTest {
	if p == 0 {
		return edgeTest{}
	}
	k := bits.TrailingZeros64(uint64(p))
	m := uint64(p) >> k
	// Newton's iteration for the inverse modulo 2^64: m*m = 1 mod 8 for an
	// odd m (3 bits right), and each step doubles the bits that are right.
	inv := m
	for range 5 {
		inv *= 2 - m*inv
	}
	return edgeTest{inv: inv, limit: ^uint64(0) / uint64(p), shift: k}
}

// is reports whether t is a multiple of the period.
func (e edgeTest) is(t Tick) bool {
	return bits.RotateLeft64(uint64(t)*e.inv, -e.shift) <= e.limit
}
