package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// storeResult is a result of points with and without a time series.
func storeResult() *Result {
	r := csvResult()
	r.Points[1].Series = &Series{IntervalPS: 10, WarmupPS: 10, EndPS: 20, Generators: []GenSeries{{Name: "g",
		Completed: []uint64{1, 2}, Failed: []uint64{0, 0}, Bytes: []uint64{64, 128}, LatencyCount: []uint64{1, 2},
		P50NS: []float64{1, 2}, P99NS: []float64{1, 2}, MaxNS: []float64{1, 2}}}}
	return r
}

// TestStreamedOutputIsByteIdentical: results.json, results.csv and
// timeseries.csv written one point at a time from a point store are the
// bytes WriteResults writes for the whole result, whether the store keeps
// every point in memory, some or none, and when a store opened again on
// the folder (a resumed sweep's) reads them all back.
func TestStreamedOutputIsByteIdentical(t *testing.T) {
	r := storeResult()
	whole := t.TempDir()
	require.NoError(t, WriteResults(whole, r))
	first, err := pointJSON(&r.Points[0])
	require.NoError(t, err)
	head := *r
	head.Points = nil
	for _, c := range []struct {
		name    string
		keptMax int
		reopen  bool
	}{{"every point kept", PointsKeptBytesMax, false}, {"the first kept", len(first), false}, {"none kept", 0, false}, {"reopened", PointsKeptBytesMax, true}} {
		t.Run(c.name, func(t *testing.T) {
			streamed := t.TempDir()
			store, err := newPointStore(streamed, c.keptMax)
			require.NoError(t, err)
			for i := range r.Points {
				require.NoError(t, store.Put(i, &r.Points[i]))
				require.True(t, store.Has(i))
			}
			if c.reopen {
				store, err = NewPointStore(streamed)
				require.NoError(t, err)
			}
			require.NoError(t, WriteStreamed(streamed, &head, len(r.Points), store.Get))
			for _, f := range []string{ResultsJSON, ResultsCSV, TimeseriesCSV} {
				a, err := os.ReadFile(filepath.Join(whole, f))
				require.NoError(t, err)
				b, err := os.ReadFile(filepath.Join(streamed, f))
				require.NoError(t, err)
				require.Equal(t, string(a), string(b), f)
			}
		})
	}
	empty := t.TempDir()
	store, err := NewPointStore(empty)
	require.NoError(t, err)
	require.NoError(t, WriteStreamed(empty, &head, 0, store.Get))
	head.Points = []PointResult{}
	b, err := EncodeJSON(&head)
	require.NoError(t, err)
	got, _ := os.ReadFile(filepath.Join(empty, ResultsJSON))
	require.Equal(t, string(b), string(got), "a shard without points")
}

// TestPointStoreKeepsPointsInMemoryUpToItsBound: a point store keeps the
// points put in it in memory while their results.json text fits its
// bound, and reads the others back from their files, equal to what was
// put; Remove forgets the points it kept.
func TestPointStoreKeepsPointsInMemoryUpToItsBound(t *testing.T) {
	r := storeResult()
	first, err := pointJSON(&r.Points[0])
	require.NoError(t, err)
	store, err := newPointStore(t.TempDir(), len(first))
	require.NoError(t, err)
	for i := range r.Points {
		require.NoError(t, store.Put(i, &r.Points[i]))
	}
	p, js, err := store.Get(0)
	require.NoError(t, err)
	require.Same(t, &r.Points[0], p, "kept")
	require.Equal(t, string(first), string(js))
	p, js, err = store.Get(1)
	require.NoError(t, err)
	require.Nil(t, js, "past the bound: read back")
	require.Equal(t, r.Points[1], *p)
	require.NoError(t, store.Remove())
	_, _, err = store.Get(0)
	require.Error(t, err, "removed: neither kept nor on file")
}
