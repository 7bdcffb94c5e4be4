package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func loadCliff(t *testing.T) *File {
	t.Helper()
	f, err := Load("translation-reach-cliff.yaml", Options{})
	require.NoError(t, err)
	require.Greater(t, len(f.Points), 4, "the cliff workload is a sweep")
	return f
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
