package sim

import (
	"flag"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomised tests (0: a fresh seed, printed)")

// testSeed returns the seed for a randomised test and logs it so that a
// failure can be replayed with -seed.
func testSeed(t testing.TB) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
	return s
}
