package workloads

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func encodeResult(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(r))
	return b.String()
}

func loadCliff(t *testing.T) *File {
	t.Helper()
	f, err := Load("translation-reach-cliff.yaml", Options{})
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
		var parts []*Result
		// Merge in reverse shard order: the order shards arrive in must not matter.
		for i := n - 1; i >= 0; i-- {
			r, err := RunSweep(f, SweepOptions{Jobs: 2, Shard: i, Shards: n})
			require.NoError(t, err)
			parts = append(parts, r)
		}
		m, err := MergeShards(parts)
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
	_, err = MergeShards([]*Result{s0})
	require.ErrorContains(t, err, "in no shard")
	_, err = MergeShards([]*Result{s0, s1, s0})
	require.ErrorContains(t, err, "more than one shard")
	other := *s1
	other.Seed++
	_, err = MergeShards([]*Result{s0, &other})
	require.ErrorContains(t, err, "seed")
	part := *s1
	part.Partial = true
	_, err = MergeShards([]*Result{s0, &part})
	require.ErrorContains(t, err, "partial")
}

func TestShardPointsRoundRobinAndBounds(t *testing.T) {
	idx, err := ShardPoints(7, 1, 3)
	require.NoError(t, err)
	require.Equal(t, []int{1, 4}, idx)
	idx, err = ShardPoints(7, 0, 0)
	require.NoError(t, err)
	require.Len(t, idx, 7)
	_, err = ShardPoints(7, 3, 3)
	require.ErrorContains(t, err, "out of range 0..2")
	_, err = ShardPoints(7, 0, ShardsMax+1)
	require.Error(t, err)
}

func TestSweepLabelsFollowTheLoadersOrder(t *testing.T) {
	f := loadCliff(t)
	labels := SweepLabels(f.Sweep)
	require.Len(t, labels, len(f.Points))
	for i, w := range f.Points {
		require.Equal(t, Label(w.Point), labels[i])
	}
}
