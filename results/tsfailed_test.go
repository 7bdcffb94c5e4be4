package results

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// timeseries.csv's throughput counts the interval's successful
// completions only: 10 completed, 4 of them failed, over 1 us is 6 M/s.
func TestTimeseriesThroughputCountsOnlySuccessfulCompletions(t *testing.T) {
	g := GenSeries{Name: "g", Completed: []uint64{10}, Failed: []uint64{4}, Bytes: []uint64{384},
		LatencyCount: []uint64{6}, P50NS: []float64{1}, P99NS: []float64{2}, MaxNS: []float64{3}}
	r := &Result{Points: []PointResult{{Series: &Series{IntervalPS: 1e6, EndPS: 1e6, Generators: []GenSeries{g}}}}}
	var b bytes.Buffer
	require.NoError(t, WriteTimeseriesCSV(&b, r))
	require.Contains(t, b.String(), ",generator,g,0,1,true,10,4,6,3.072,6,")
}
