package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// slurmSweep is a 9-point sweep of short points over the script's 16
// shards, as in docs/scaling.md: seven shards get no point and must still
// merge.
const slurmSweep = `name: slurm-test
adapter: {preset: generic}
run: {seed: 3, warmup_us: 2, duration_us: 10}
generators: [{name: reads, kind: dma_read, outstanding: 4, size_bytes: 64}]
sweep:
  generators.reads.outstanding: [1, 4, 16]
  generators.reads.size_bytes: [64, 256, 1024]
`

// TestSlurmScriptRunsEveryShardAndTheShardsMerge runs
// scripts/slurm/sweep.sbatch once per array index with the environment
// Slurm gives a task, each as a rerun of one index would see it
// (SLURM_ARRAY_TASK_COUNT=1), then merges the shards: the merged output is
// that of the unsharded sweep, so the script took its shard count from
// itself.
func TestSlurmScriptRunsEveryShardAndTheShardsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nicsim and runs 16 shards")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "nicsim")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	wl := filepath.Join(root, "slurm-test.yaml")
	require.NoError(t, os.WriteFile(wl, []byte(slurmSweep), 0o644))
	script, err := filepath.Abs("../../scripts/slurm/sweep.sbatch")
	require.NoError(t, err)
	shards := filepath.Join(root, "shards")
	var dirs []string
	for i := range 16 {
		cmd := exec.Command(bash, script)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_ARRAY_TASK_COUNT=1",
			"SLURM_ARRAY_JOB_ID=42", "SLURM_CPUS_PER_TASK=1", "NICSIM="+bin, "WORKLOAD="+wl, "OUT="+shards)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "array index %d: %s", i, out)
		dirs = append(dirs, filepath.Join(shards, fmt.Sprintf("slurm-test-%d-of-16", i)))
	}
	cmd := exec.Command(bash, script)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=16", "NICSIM="+bin)
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "not a shard of 0..15")

	merged := filepath.Join(root, "merged")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch(append([]string{"merge", "--no-plots", "--out", merged}, dirs...), &so, &se), se.String())
	whole := filepath.Join(root, "whole")
	require.Equal(t, 0, dispatch([]string{"sweep", wl, "--out", whole, "--quiet", "--no-plots"}, &so, &se), se.String())
	for _, f := range []string{"results.json", "results.csv", "timeseries.csv"} {
		require.Equal(t, readFile(t, filepath.Join(whole, f)), readFile(t, filepath.Join(merged, f)), f)
	}
}
