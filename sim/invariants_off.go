//go:build !invariants

package sim

// Invariants is false in ordinary builds: expensive consistency checks are
// compiled out.
const Invariants = false
