package results

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// shardOf is a shard of a two-point sweep holding the given points.
func shardOf(labels ...string) *Result {
	r := &Result{Workload: "w", Seed: 1, Sweep: []workloads.SweepAxis{{Path: "run.seed", Values: []string{"1", "2"}}}}
	for _, l := range labels {
		r.Points = append(r.Points, PointResult{Label: l})
	}
	return r
}

// A shard may hold no point; merge accepts it (docs/scaling.md).
func TestMergeShardsAcceptsAnEmptyShard(t *testing.T) {
	m, err := MergeShards([]*Result{shardOf("run.seed=2"), shardOf(), shardOf("run.seed=1")})
	require.NoError(t, err)
	require.Equal(t, "run.seed=1", m.Points[0].Label)
	require.Len(t, m.Points, 2)
}

// Shards with different config.json files are refused at the first key
// that differs, the resolved points first.
func TestSameConfigNamesTheFirstDifference(t *testing.T) {
	a := &Shard{Dir: "a", Config: []byte(`{"sets": [], "points": [{"adapter": {"pcie": {"lanes": 8}}}]}`)}
	b := &Shard{Dir: "b", Config: []byte(`{"sets": ["adapter.pcie.lanes=16"], "points": [{"adapter": {"pcie": {"lanes": 16}}}]}`)}
	require.NoError(t, SameConfig([]*Shard{a, a}))
	require.EqualError(t, SameConfig([]*Shard{a, b}),
		"shard 1 (b) was run with another configuration than shard 0 (a): config.json differs at points.0.adapter.pcie.lanes: 8 in shard 0, 16 in shard 1")
	c := &Shard{Dir: "c", Config: []byte(`{"sets": ["x=1"], "points": [{"adapter": {"pcie": {"lanes": 8}}}]}`)}
	require.ErrorContains(t, SameConfig([]*Shard{a, c}), `config.json differs at sets: [] in shard 0, ["x=1"] in shard 1`)
}

// FuzzMergeShards feeds arbitrary results.json and config.json files of two
// shards to merge: it never panics, and a merge it accepts holds every
// point of the sweep once, in sweep order.
func FuzzMergeShards(f *testing.F) {
	for _, pair := range [][2]*Result{{shardOf("run.seed=1"), shardOf("run.seed=2")}, {shardOf("run.seed=1", "run.seed=2"), shardOf()},
		{shardOf("run.seed=1"), shardOf("run.seed=1")}, {shardOf(), shardOf()}} {
		a, _ := EncodeJSON(pair[0])
		b, _ := EncodeJSON(pair[1])
		f.Add(a, b, []byte(`{"points": []}`), []byte(`{"points": []}`))
		f.Add(a, b, []byte(`{"points": [1]}`), []byte(`{"points": [2]}`))
	}
	f.Fuzz(func(t *testing.T, ra, rb, ca, cb []byte) {
		var shards []*Shard
		for _, files := range [][2][]byte{{ra, ca}, {rb, cb}} {
			s, err := parseShard("s", files[0], files[1])
			if err != nil {
				return
			}
			shards = append(shards, s)
		}
		m, err := MergeShards([]*Result{shards[0].Result, shards[1].Result})
		_ = SameConfig(shards)
		if err != nil {
			return
		}
		labels := workloads.SweepLabels(m.Sweep)
		require.Len(t, m.Points, len(labels))
		for i, p := range m.Points {
			require.Equal(t, labels[i], p.Label)
		}
	})
}

// A results file whose sweep would have more points than a sweep can
// (8 axes of 64 values: 2^48 labels) is refused before any label is made.
func TestMergeShardsRefusesAnImpossibleSweep(t *testing.T) {
	r := shardOf()
	r.Sweep = nil
	vals := make([]string, 64)
	for i := range vals {
		vals[i] = string(rune('a' + i%26))
	}
	for i := range 8 {
		r.Sweep = append(r.Sweep, workloads.SweepAxis{Path: string(rune('p' + i)), Values: vals})
	}
	_, err := MergeShards([]*Result{r, r})
	require.EqualError(t, err, "shard 0: the sweep has more than 4096 points")
}
