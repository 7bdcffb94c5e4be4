package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// interruptAfter makes the next commands see Ctrl-C once the point store
// of the sweep into dir (in its work folder while it runs) holds n points.
func interruptAfter(t *testing.T, dir string, n int) {
	t.Helper()
	old := interruptSource
	t.Cleanup(func() { interruptSource = old })
	interruptSource = func() (func() bool, func()) {
		return func() bool {
			files, _ := filepath.Glob(filepath.Join(results.SweepWorkDir(dir), results.PointsDir, "*.json"))
			return len(files) >= n
		}, func() {}
	}
}

// TestSweepResumeRunsOnlyTheMissingPoints: a sweep interrupted after two of
// nine points exits 130 with partial results; --resume runs the seven
// others (the two kept are not run again: a mark put in one survives) and
// gives the bytes of an uninterrupted sweep.
func TestSweepResumeRunsOnlyTheMissingPoints(t *testing.T) {
	whole := filepath.Join(t.TempDir(), "whole")
	sweepInto(t, whole, "--jobs", "1", "--no-plots")
	dir := filepath.Join(t.TempDir(), "cut")
	interruptAfter(t, dir, 2)
	var so, se bytes.Buffer
	args := []string{"sweep", cliffFile, "--out", dir, "--jobs", "1", "--quiet", "--no-plots"}
	require.Equal(t, exitInterrupted, dispatch(args, &so, &se), se.String())
	require.Contains(t, se.String(), "--resume "+dir)
	var m results.SweepMeta
	b, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, 2, m.Points)
	require.True(t, m.Partial)

	interruptSource = func() (func() bool, func()) { return func() bool { return false }, func() {} }
	so.Reset()
	se.Reset()
	require.Equal(t, 0, dispatch([]string{"sweep", "--resume", dir, "--jobs", "2"}, &so, &se), se.String())
	b, _ = os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, 9, m.Points)
	require.Equal(t, 2, m.Resumed, "the two finished points were kept, seven run")
	require.Regexp(t, `simulator: [0-9.]+ s wall, [1-9][0-9]* events, [0-9]+ ns wall per work request.* \(the 7 points run now, 2 at once\)`, so.String(),
		"the speed line counts the points this process ran, not those it took from the first")
	for _, f := range []string{"results.json", "results.csv", "timeseries.csv"} {
		require.Equal(t, readFile(t, filepath.Join(whole, f)), readFile(t, filepath.Join(dir, f)), f)
	}
	require.NoDirExists(t, filepath.Join(dir, results.PointsDir), "a complete sweep keeps no point store")

	so.Reset()
	se.Reset()
	require.Equal(t, exitUsage, dispatch([]string{"sweep", "--resume", dir}, &so, &se))
	require.Contains(t, se.String(), "complete")
	require.Equal(t, exitUsage, dispatch([]string{"sweep", "--resume", dir, "--set", "run.ops=1"}, &so, &se))
}

// TestResumeKeepsFinishedPointsAndRefusesAChangedWorkloadOrOrder: the points an
// interrupted sweep finished are taken as they are; a workload file that
// now resolves differently is refused, and so is a sweep that a build with
// the other same-time order began.
func TestResumeKeepsFinishedPointsAndRefusesAChangedWorkloadOrOrder(t *testing.T) {
	wl := filepath.Join(t.TempDir(), "w.yaml")
	src := readFile(t, "../../workloads/translation-reach-cliff.yaml")
	require.NoError(t, os.WriteFile(wl, []byte(src), 0o644))
	dir := filepath.Join(t.TempDir(), "cut")
	interruptAfter(t, dir, 1)
	var so, se bytes.Buffer
	args := []string{"sweep", wl, "--out", dir, "--jobs", "1", "--quiet", "--no-plots", "--set", "run.ops=2000"}
	require.Equal(t, exitInterrupted, dispatch(args, &so, &se), se.String())
	kept := filepath.Join(dir, results.PointsDir, "0.json")
	b, err := os.ReadFile(kept)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(kept, bytes.Replace(b, []byte(`"events": `), []byte(`"events": 7`), 1), 0o644))

	interruptSource = func() (func() bool, func()) { return func() bool { return false }, func() {} }
	require.NoError(t, os.WriteFile(wl, []byte(strings.Replace(src, "seed: 4", "seed: 5", 1)), 0o644))
	so.Reset()
	se.Reset()
	require.Equal(t, exitFailed, dispatch([]string{"sweep", "--resume", dir}, &so, &se))
	require.Contains(t, se.String(), "another configuration")

	require.NoError(t, os.WriteFile(wl, []byte(src), 0o644))
	meta := readFile(t, filepath.Join(dir, "meta.json"))
	markReversed(t, dir) // as if a check build (-tags reverseties) had begun it
	se.Reset()
	require.Equal(t, exitFailed, dispatch([]string{"sweep", "--resume", dir}, &so, &se))
	require.Contains(t, se.String(), "the sweep ran same-time events in the reversed order, this binary runs them in the ordinary order")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "meta.json"), []byte(meta), 0o644))
	se.Reset()
	require.Equal(t, 0, dispatch([]string{"sweep", "--resume", dir, "--quiet"}, &so, &se), se.String())
	require.Contains(t, readFile(t, filepath.Join(dir, "results.json")), `"events": 7`, "the kept point was not run again")
}

// TestProgressLinesWhenStderrIsNotATerminal: a sweep whose stderr is a
// log file prints lines of progress (every 5 s; here every update).
func TestProgressLinesWhenStderrIsNotATerminal(t *testing.T) {
	old := progressLineEvery
	progressLineEvery = 0
	t.Cleanup(func() { progressLineEvery = old })
	var so, se bytes.Buffer
	args := []string{"sweep", "../../workloads/translation-reach-cliff.yaml", "--out", filepath.Join(t.TempDir(), "s"), "--jobs", "1",
		"--quiet", "--no-plots", "--set", "run.ops=500"}
	require.Equal(t, 0, dispatch(args, &so, &se), se.String())
	require.Contains(t, se.String(), "nicsim: sweep translation-reach-cliff: 9 of 9 points done (100%)")
	require.Contains(t, se.String(), "elapsed, about")
}
