package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStreamedOutputIsByteIdentical: results.json, results.csv and
// timeseries.csv written one point at a time from a point store are the
// bytes WriteResults writes for the whole result.
func TestStreamedOutputIsByteIdentical(t *testing.T) {
	r := csvResult()
	r.Points[1].Series = &Series{IntervalPS: 10, WarmupPS: 10, EndPS: 20, Generators: []GenSeries{{Name: "g",
		Completed: []uint64{1, 2}, Failed: []uint64{0, 0}, Bytes: []uint64{64, 128}, LatencyCount: []uint64{1, 2},
		P50NS: []float64{1, 2}, P99NS: []float64{1, 2}, MaxNS: []float64{1, 2}}}}
	whole, streamed := t.TempDir(), t.TempDir()
	require.NoError(t, WriteResults(whole, r))
	store, err := NewPointStore(streamed)
	require.NoError(t, err)
	for i := range r.Points {
		require.NoError(t, store.Put(i, &r.Points[i]))
		require.True(t, store.Has(i))
	}
	head := *r
	head.Points = nil
	require.NoError(t, WriteStreamed(streamed, &head, len(r.Points), store.Get))
	for _, f := range []string{ResultsJSON, ResultsCSV, TimeseriesCSV} {
		a, err := os.ReadFile(filepath.Join(whole, f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(streamed, f))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), f)
	}
	empty := t.TempDir()
	require.NoError(t, WriteStreamed(empty, &head, 0, store.Get))
	head.Points = []PointResult{}
	b, err := EncodeJSON(&head)
	require.NoError(t, err)
	got, _ := os.ReadFile(filepath.Join(empty, ResultsJSON))
	require.Equal(t, string(b), string(got), "a shard without points")
}
