package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// cutSweep runs nineRun into dir, interrupted once two points are kept,
// and returns the paths of the point files.
func cutSweep(t *testing.T, dir string) []string {
	t.Helper()
	f := writeFile(t, t.TempDir(), "nine.yaml", nineRun)
	interruptAfter(t, dir, 2)
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--jobs", "1", "--out", dir)
	require.Equal(t, exitInterrupted, code, stderr)
	interruptSource = func() (func() bool, func()) { return func() bool { return false }, func() {} }
	kept, _ := filepath.Glob(filepath.Join(dir, results.PointsDir, "*.json"))
	require.GreaterOrEqual(t, len(kept), 2)
	return kept
}

// A resumed sweep reads its folder's point files before anything runs: a
// corrupt one is named with where it goes wrong, no point runs, and the
// folder stays where it is.
func TestResumeRefusesACorruptPointFileBeforeRunning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cut")
	kept := cutSweep(t, dir)
	require.NoError(t, os.WriteFile(kept[0], []byte("garbage{\n"), 0o644))
	code, _, stderr := nicsim(t, "sweep", "--resume", dir, "--quiet")
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "nicsim sweep: resuming "+dir+": "+kept[0]+": not a point's result this nicsim reads: invalid character 'g'")
	require.Contains(t, stderr, "at line 1, column 1 (offset 1); remove it, and the point runs again; nothing was run")
	require.DirExists(t, dir)
	require.NoDirExists(t, results.SweepWorkDir(dir))
	now, _ := filepath.Glob(filepath.Join(dir, results.PointsDir, "*.json"))
	require.Equal(t, kept, now, "no point ran")

	require.NoError(t, os.Remove(kept[0]))
	code, _, stderr = nicsim(t, "sweep", "--resume", dir, "--quiet")
	require.Equal(t, exitOK, code, stderr)
}

// A resumed sweep that fails once it has begun puts its folder back where
// it was, with the points finished since, and says where they are.
func TestFailedResumeLeavesTheFolderInPlace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cut")
	kept := cutSweep(t, dir)
	// A kept point is read back from its file as the outputs are written:
	// spoil it once the sweep is under way, past the check.
	spoil := filepath.Join(results.SweepWorkDir(dir), results.PointsDir, filepath.Base(kept[0]))
	interruptSource = func() (func() bool, func()) {
		return func() bool { _ = os.WriteFile(spoil, []byte("{]"), 0o644); return false }, func() {}
	}
	code, _, stderr := nicsim(t, "sweep", "--resume", dir, "--quiet")
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "the points finished so far are in "+filepath.Join(dir, results.PointsDir)+", and nicsim sweep --resume "+dir+" runs the rest")
	require.DirExists(t, dir)
	require.NoDirExists(t, results.SweepWorkDir(dir))
	now, _ := filepath.Glob(filepath.Join(dir, results.PointsDir, "*.json"))
	require.Len(t, now, 9, "the points run since are kept")
}
