package simtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeedTakesTheFlagThenTheDefault: a given -seed wins over the test's
// default, a default wins over the clock, and with neither two calls give
// fresh seeds.
func TestSeedTakesTheFlagThenTheDefault(t *testing.T) {
	old := *seedFlag
	defer func() { *seedFlag = old }()
	*seedFlag = 0
	require.Equal(t, uint64(7), Seed(t, 7))
	require.NotZero(t, Seed(t, 0))
	*seedFlag = 42
	require.Equal(t, uint64(42), Seed(t, 7))
	s, ok := Given()
	require.True(t, ok)
	require.Equal(t, uint64(42), s)
}
