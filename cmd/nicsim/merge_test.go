package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// nineRun is a quick 9-point sweep.
const nineRun = "run: {warmup_us: 1, duration_us: 5}\ngenerators: [{name: rd, kind: dma_read, size_bytes: 64}]\n" +
	"sweep: {generators.rd.outstanding: [1, 2, 3, 4, 5, 6, 7, 8, 9]}\n"

// docs/scaling.md: a shard may hold no point (16 shards over 9 points); it
// writes its empty results and merge accepts it, giving the unsharded
// sweep's output.
func TestMergeAcceptsEmptyShards16Over9Points(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	whole := filepath.Join(root, "whole")
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--out", whole)
	require.Equal(t, exitOK, code, stderr)
	args := []string{"merge", "--no-plots", "--out", filepath.Join(root, "merged")}
	for i := range 16 {
		d := filepath.Join(root, fmt.Sprintf("shard-%d-of-16", i))
		code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--shard", fmt.Sprintf("%d/16", i), "--out", d)
		require.Equal(t, exitOK, code, "shard %d: %s", i, stderr)
		args = append(args, d)
	}
	code, stdout, stderr := nicsim(t, args...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "merged 9 points from 16 shards")
	for _, name := range []string{"results.json", "results.csv", "config.json"} {
		require.Equal(t, readFile(t, filepath.Join(whole, name)), readFile(t, filepath.Join(root, "merged", name)), name)
	}
}

// Shards run with different --set values (or presets) hold different
// resolved configurations: merge refuses them, naming the first
// difference, instead of copying shard 0's config.json as if it held for
// all.
func TestMergeRefusesShardsWithDifferentConfigs(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--shard", "0/2", "--out", a)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--no-plots", "--shard", "1/2", "--out", b, "--set", "adapter.pcie.lanes=16")
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = nicsim(t, "merge", "--no-plots", "--out", filepath.Join(root, "m"), a, b)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "shard 1 ("+b+") was run with another configuration than shard 0 ("+a+"): config.json differs at ")
	require.Contains(t, stderr, "adapter.pcie.lanes: 8 in shard 0, 16 in shard 1")
	require.NoDirExists(t, filepath.Join(root, "m"))
}

// TestMergeRefusesShardsOfAnOrdinaryAndACheckBuild: shards whose meta.json
// say they ran same-time events in different orders (one a check build's,
// -tags reverseties) are not merged; shards of check builds only merge
// into a folder whose meta.json says so, whichever build merges them.
func TestMergeRefusesShardsOfAnOrdinaryAndACheckBuild(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for i, d := range []string{a, b} {
		code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--shard", fmt.Sprintf("%d/2", i), "--out", d)
		require.Equal(t, exitOK, code, stderr)
	}
	markReversed(t, b)
	code, _, stderr := nicsim(t, "merge", "--no-plots", "--out", filepath.Join(root, "m"), a, b)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "shard 1 ("+b+") ran same-time events in the reversed order, shard 0 ("+a+") in the ordinary order")
	require.NoDirExists(t, filepath.Join(root, "m"))

	markReversed(t, a)
	code, _, stderr = nicsim(t, "merge", "--no-plots", "--out", filepath.Join(root, "m"), a, b)
	require.Equal(t, exitOK, code, stderr)
	meta, err := os.ReadFile(filepath.Join(root, "m", "meta.json"))
	require.NoError(t, err)
	require.Contains(t, string(meta), `"same_time_order": "reversed"`)
}

// markReversed makes the meta.json in dir say a check build ran it.
func markReversed(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "meta.json")
	var m map[string]any
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	m["same_time_order"] = "reversed"
	require.NoError(t, results.WriteJSON(path, m))
}

// A sweep runs no more points at once than its memory budget holds, and
// says so.
func TestSweepJobsCappedByTheMemoryBudget(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", strings.Replace(nineRun, "duration_us: 5}", "duration_us: 5, memory_max_bytes: 134217728}", 1))
	lf, err := workloads.Load(f, workloads.Options{})
	require.NoError(t, err)
	jobs := lf.JobsWithin()
	require.Less(t, jobs, 8)
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--jobs", "8", "--out", filepath.Join(root, "out"))
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, fmt.Sprintf("nicsim sweep: running %d points at once, not 8: that is what run.memory_max_bytes = 128.0 MiB holds", jobs))
}
