package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func draw(seed uint64, name string, n int) []uint64 {
	r := Stream(seed, name)
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestComponentStreamsAreIndependentOfOtherComponents(t *testing.T) {
	// The same (seed, name) gives the same stream whatever else exists.
	env := NewEnv(99)
	a1 := draw(env.Seed, "NIC[0].WQEFetch", 8)
	_ = env.Stream("NIC[0].New") // a component added later
	a2 := draw(env.Seed, "NIC[0].WQEFetch", 8)
	require.Equal(t, a1, a2)
	require.NotEqual(t, a1, draw(99, "NIC[1].WQEFetch", 8), "different names, different streams")
	require.NotEqual(t, a1, draw(100, "NIC[0].WQEFetch", 8), "different seeds, different streams")
}
