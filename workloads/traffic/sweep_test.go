package traffic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

func encodeResult(t *testing.T, r *results.Result) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(r))
	return b.String()
}

func loadCliff(t *testing.T) *workloads.File {
	t.Helper()
	f, err := workloads.Load("../translation-reach-cliff.yaml", workloads.Options{})
	require.NoError(t, err)
	require.Greater(t, len(f.Points), 4, "the cliff workload is a sweep")
	return f
}

func TestSweepResultsAreIdenticalWhateverJobs(t *testing.T) {
	f := loadCliff(t)
	serial, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	for _, jobs := range []int{1, 2, 4} {
		r, err := RunSweep(f, SweepOptions{Jobs: jobs})
		require.NoError(t, err)
		require.Equal(t, encodeResult(t, serial), encodeResult(t, r), "jobs=%d", jobs)
	}
}

func TestMergedShardsEqualTheUnshardedSweep(t *testing.T) {
	f := loadCliff(t)
	whole, err := RunSweep(f, SweepOptions{Jobs: 2})
	require.NoError(t, err)
	for _, n := range []int{2, 3, len(f.Points) + 2} {
		var parts []*results.Result
		// Merge in reverse shard order: the order shards arrive in must not matter.
		for i := n - 1; i >= 0; i-- {
			r, err := RunSweep(f, SweepOptions{Jobs: 2, Shard: i, Shards: n})
			require.NoError(t, err)
			parts = append(parts, r)
		}
		m, err := results.MergeShards(parts)
		require.NoError(t, err, "n=%d", n)
		require.Equal(t, encodeResult(t, whole), encodeResult(t, m), "n=%d", n)
	}
}

func TestMergeRefusesMissingDuplicateAndForeignShards(t *testing.T) {
	f := loadCliff(t)
	s0, err := RunSweep(f, SweepOptions{Shard: 0, Shards: 2})
	require.NoError(t, err)
	s1, err := RunSweep(f, SweepOptions{Shard: 1, Shards: 2})
	require.NoError(t, err)
	_, err = results.MergeShards([]*results.Result{s0})
	require.ErrorContains(t, err, "in no shard")
	_, err = results.MergeShards([]*results.Result{s0, s1, s0})
	require.ErrorContains(t, err, "more than one shard")
	other := *s1
	other.Seed++
	_, err = results.MergeShards([]*results.Result{s0, &other})
	require.ErrorContains(t, err, "seed")
	part := *s1
	part.Partial = true
	_, err = results.MergeShards([]*results.Result{s0, &part})
	require.ErrorContains(t, err, "partial")
}
