package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// longRun takes minutes to simulate: a command that fails on its output
// folder must fail before it.
const longRun = "run: {warmup_us: 0, duration_us: 10000000, sim_time_max_us: 10000000}\ngenerators: [{kind: dma_read, outstanding: 32}]\n"

// An output folder that cannot be written (a file, a path under /proc) is
// found before anything is simulated.
func TestUnwritableOutFailsBeforeSimulating(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "long.yaml", longRun)
	file := writeFile(t, dir, "afile", "x")
	for _, out := range []string{file, "/proc/nicsim-x", filepath.Join(file, "sub")} {
		for _, cmd := range []string{"run", "sweep"} {
			code, _, stderr := nicsimWithin(t, 10*time.Second, cmd, f, "--quiet", "--out", out)
			require.Equal(t, exitFailed, code, "%s --out %s", cmd, out)
			require.Contains(t, stderr, "nicsim "+cmd+": output folder "+out, "%s --out %s", cmd, out)
			require.Contains(t, stderr, "nothing was run", "%s --out %s", cmd, out)
		}
	}
}

// Two files with the same name stem and seed never write into one folder
// silently: files of different configurations get folders of their own
// (the default name carries the configuration's hash), and two that would
// still share one are refused before either runs.
func TestTwoFilesWritingOneFolderAreRefused(t *testing.T) {
	root := t.TempDir()
	a := writeFile(t, mkdir(t, root, "a"), "w.yaml", smallRun)
	b := writeFile(t, mkdir(t, root, "b"), "w.yaml", strings.Replace(smallRun, "outstanding: 4", "outstanding: 8", 1))
	same := writeFile(t, mkdir(t, root, "c"), "w.yaml", smallRun)
	out := filepath.Join(root, "out")
	code, _, stderr := nicsim(t, "run", "--quiet", "--out", out, a, b)
	require.Equal(t, exitOK, code, stderr)
	dirs, _ := filepath.Glob(filepath.Join(out, "w-1-*"))
	require.Len(t, dirs, 2, "one folder each")
	code, _, stderr = nicsim(t, "run", "--quiet", "--out", filepath.Join(root, "out2"), a, same)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, a+" and "+same+" would both write "+filepath.Join(root, "out2", "w-1-"))
	require.NoDirExists(t, filepath.Join(root, "out2"))
}

// A folder holding a run of another configuration, or of the same one by a
// build with the other same-time order, is refused unless --force; a rerun
// of the same configuration replaces its own folder. The
// folder is written whole into a temporary folder and renamed into place:
// nothing of the older run (its plots) stays beside the new results.
func TestOutFolderOfAnotherRunRefusedUnlessForce(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	out := filepath.Join(root, "out")
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	require.FileExists(t, filepath.Join(out, "throughput_mops-vs-generators.rd.outstanding.png"))
	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--out", out)
	require.Equal(t, exitOK, code, "a rerun of the same configuration: %s", stderr)

	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--no-plots", "--out", out, "--set", "adapter.pcie.lanes=16")
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "output folder "+out+" holds another run (another configuration); choose another --out, or replace it with --force; nothing was run")
	code, _, stderr = nicsim(t, "run", "--quiet", f, "--out", out, "--set", "adapter.pcie.lanes=16")
	require.Equal(t, exitFailed, code, stderr)

	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--no-plots", "--out", out, "--set", "adapter.pcie.lanes=16", "--force")
	require.Equal(t, exitOK, code, stderr)
	require.NoFileExists(t, filepath.Join(out, "throughput_mops-vs-generators.rd.outstanding.png"), "an older run's plots beside new results")
	require.Contains(t, readFile(t, filepath.Join(out, "config.json")), "adapter.pcie.lanes=16")
	left, _ := filepath.Glob(filepath.Join(root, ".out.*"))
	require.Empty(t, left, "no temporary folder left behind")

	markReversed(t, out) // as if a check build (-tags reverseties) had run it
	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--no-plots", "--out", out, "--set", "adapter.pcie.lanes=16")
	require.Equal(t, exitFailed, code, "the same configuration run by a check build is another run")
	require.Contains(t, stderr, "holds another run (one with same-time events in the reversed order)")

	other := writeFile(t, mkdir(t, root, "notarun"), "notes.txt", "mine")
	code, _, stderr = nicsim(t, "run", "--quiet", "--force", f, "--out", filepath.Dir(other))
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "holds files that are not a nicsim run")
	require.FileExists(t, other)
}

// An interrupted sweep replaces an older complete run of its folder: the
// folder never keeps an older results.json marked complete, nor its plots.
func TestInterruptedSweepReplacesTheOlderRunWhole(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	out := filepath.Join(root, "out")
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	saved := interruptSource
	defer func() { interruptSource = saved }()
	polls := 0
	interruptSource = func() (func() bool, func()) { return func() bool { polls++; return polls > 3 }, func() {} }
	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--jobs", "1", "--out", out, "--force", "--set", "run.duration_us=50")
	require.Equal(t, exitInterrupted, code, stderr)
	var r struct {
		Partial bool              `json:"partial"`
		Points  []json.RawMessage `json:"points"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &r))
	require.True(t, r.Partial)
	require.Less(t, len(r.Points), 9)
	pngs, _ := filepath.Glob(filepath.Join(out, "*.png"))
	require.Empty(t, pngs)
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	require.NoError(t, os.MkdirAll(d, 0o755))
	return d
}

// A sweep killed outright (no signal it can catch) leaves its finished
// points in its work folder beside the destination, which keeps the older
// run untouched; --resume finds them and finishes the sweep.
func TestKilledSweepResumesFromItsWorkFolder(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	whole := filepath.Join(root, "whole")
	code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--jobs", "1", "--out", whole)
	require.Equal(t, exitOK, code, stderr)
	out := filepath.Join(root, "out")
	saved := interruptSource
	defer func() { interruptSource = saved }()
	interruptAfter(t, out, 3)
	code, _, stderr = nicsim(t, "sweep", f, "--quiet", "--no-plots", "--jobs", "1", "--out", out)
	require.Equal(t, exitInterrupted, code, stderr)
	require.NoError(t, os.Rename(out, results.SweepWorkDir(out)), "as a killed sweep leaves it")
	interruptSource = func() (func() bool, func()) { return func() bool { return false }, func() {} }
	code, _, stderr = nicsim(t, "sweep", "--resume", out, "--quiet")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, readFile(t, filepath.Join(whole, "results.json")), readFile(t, filepath.Join(out, "results.json")))
	require.NoDirExists(t, results.SweepWorkDir(out))
}
