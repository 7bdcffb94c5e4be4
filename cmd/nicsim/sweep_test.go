package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

const cliffFile = "../../workloads/translation-reach-cliff.yaml"

func sweepInto(t *testing.T, dir string, extra ...string) {
	t.Helper()
	var so, se bytes.Buffer
	args := append([]string{"sweep", cliffFile, "--out", dir, "--quiet"}, extra...)
	require.Equal(t, 0, dispatch(args, &so, &se), se.String())
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestSweepOutputIsIdenticalWhateverJobsAndHasPlots(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	sweepInto(t, a, "--jobs", "1")
	sweepInto(t, b, "--jobs", "3")
	for _, f := range []string{"results.json", "results.csv", "config.json"} {
		require.Equal(t, readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f)), f)
	}
	for _, f := range []string{"throughput_mops-vs-regions.data.pages.png", "latency_ns_p99-vs-regions.data.pages.svg", "latency_cdf-lookups.png", "latency_cdf-lookups.svg"} {
		st, err := os.Stat(filepath.Join(a, f))
		require.NoError(t, err, f)
		require.Greater(t, st.Size(), int64(1000), f)
	}
	require.Contains(t, readFile(t, filepath.Join(a, "results.csv")), "\n8,65536,generator,lookups,,translate,")
}

// TestPlotsAreByteIdenticalDrawnOneOrFourAtOnce: a sweep's figures are
// drawn as many at once as there are processors (results.saveAll); every
// PNG and SVG is the same byte for byte whether one or four are drawn at
// once.
func TestPlotsAreByteIdenticalDrawnOneOrFourAtOnce(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	sweepInto(t, a)
	runtime.GOMAXPROCS(4)
	sweepInto(t, b)
	var plots []string
	for _, ext := range []string{"*.png", "*.svg"} {
		m, err := filepath.Glob(filepath.Join(a, ext))
		require.NoError(t, err)
		plots = append(plots, m...)
	}
	require.GreaterOrEqual(t, len(plots), 8, "metric, latency CDF and time-series plots, PNG and SVG each")
	for _, f := range plots {
		require.Equal(t, readFile(t, f), readFile(t, filepath.Join(b, filepath.Base(f))), filepath.Base(f))
	}
}

func TestMergedShardsGiveTheUnshardedSweepOutput(t *testing.T) {
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	sweepInto(t, whole, "--jobs", "2")
	var shards []string
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		d := filepath.Join(root, "shard"+s[:1])
		sweepInto(t, d, "--shard", s, "--jobs", "1")
		shards = append(shards, d)
	}
	merged := filepath.Join(root, "merged")
	var so, se bytes.Buffer
	args := append([]string{"merge", "--out", merged}, shards[2], shards[0], shards[1])
	require.Equal(t, 0, dispatch(args, &so, &se), se.String())
	require.Contains(t, so.String(), "merged 9 points from 3 shards")
	for _, f := range []string{"results.json", "results.csv", "config.json"} {
		require.Equal(t, readFile(t, filepath.Join(whole, f)), readFile(t, filepath.Join(merged, f)), f)
	}
	_, err := os.Stat(filepath.Join(merged, "throughput_mops-vs-regions.data.pages.png"))
	require.NoError(t, err)

	so.Reset()
	se.Reset()
	require.Equal(t, 1, dispatch([]string{"merge", "--out", filepath.Join(root, "bad"), shards[0], shards[1]}, &so, &se))
	require.Contains(t, se.String(), "in no shard")
}

func TestSweepRejectsBadFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sweep", cliffFile, "--out", dir, "--shard", "3/3"}, "i must be in 0..2"},
		{[]string{"sweep", cliffFile, "--out", dir, "--shard", "a/b"}, "want i/n"},
		{[]string{"sweep", cliffFile, "--out", dir, "--jobs", "0"}, "out of range 1..1024"},
		{[]string{"sweep", cliffFile, "--out", dir, "--x", "run.seed"}, "not an axis of the sweep"},
		{[]string{"sweep", cliffFile, "--out", dir, "--metric", "speed"}, "is not one of"},
		{[]string{"sweep"}, "want one workload file"},
		{[]string{"merge", dir}, "want --out DIR"},
	} {
		var so, se bytes.Buffer
		require.Equal(t, 2, dispatch(c.args, &so, &se), "%v: %s", c.args, se.String())
		require.Contains(t, se.String(), c.msg, "%v", c.args)
	}
}
