package simtest

import (
	"flag"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomised tests (0: each test's own default)")

// Given is the -seed flag's value and whether it was given (a value other
// than 0).
func Given() (uint64, bool) { return *seedFlag, *seedFlag != 0 }

// Seed returns the seed a randomised test uses and logs it, so that a
// failure can be replayed with -seed: the flag's value when given, else
// def, else (def 0) a fresh seed from the clock.
func Seed(t testing.TB, def uint64) uint64 {
	t.Helper()
	s, ok := Given()
	switch {
	case ok:
	case def != 0:
		s = def
	default:
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
	return s
}
