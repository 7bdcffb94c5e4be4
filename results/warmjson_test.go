package results

import (
	"encoding/json"
	"testing"

	"github.com/nicsim/nicsim/workloads"
	"github.com/stretchr/testify/require"
)

// TestPrefetchJSONEncodesEveryOutputType: the values whose encoding has
// encoding/json analyse the output files' types ahead of time encode
// without error, and hold a generator of every registered kind with its
// parameters.
func TestPrefetchJSONEncodesEveryOutputType(t *testing.T) {
	vs := warmValues()
	for _, v := range vs {
		_, err := json.Marshal(v)
		require.NoError(t, err, "%T", v)
	}
	require.NotEmpty(t, workloads.Kinds())
	gens := vs[0].([]*workloads.Workload)[0].Generators
	require.Len(t, gens, len(workloads.Kinds()))
	for i, k := range workloads.Kinds() {
		require.Equal(t, k.Name, gens[i].Kind)
		require.Equal(t, k.Params == nil, gens[i].Params == nil, k.Name)
	}
}
