//go:build invariants

package sim

// Invariants is true in builds with the invariants tag (make test): expensive
// consistency checks run and panic with a description when one fails.
const Invariants = true
