package sim

import (
	"testing"

	"github.com/nicsim/nicsim/sim/simtest"
)

// testSeed returns the seed for a randomised test, logged so that a
// failure can be replayed with -seed (0: a fresh seed).
func testSeed(t testing.TB) uint64 { return simtest.Seed(t, 0) }
