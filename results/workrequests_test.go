package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorkRequestsCountPartsOfAChainEach: a chained operation's parts
// count one work request each, and an operation without parts counts one.
func TestWorkRequestsCountPartsOfAChainEach(t *testing.T) {
	p := PointResult{Generators: []GenResult{
		{Name: "fr-inv", Completed: 10, Parts: []PartResult{{Completed: 11}, {Completed: 10}}},
		{Name: "write", Completed: 7},
	}}
	require.Equal(t, uint64(11+10+7), p.WorkRequests())
}
