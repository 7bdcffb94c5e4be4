package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --trace never writes into the output folder (putting the folder in
// place would lose it), never replaces an input file, and replaces an
// existing file only with --force; a refused trace runs nothing.
func TestTraceNeverOverwritesAFileOrLiesInTheOutputFolder(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "w.yaml", smallRun)
	out := filepath.Join(root, "o")
	for _, tr := range []string{filepath.Join(out, "trace.json"), out} {
		code, _, stderr := nicsim(t, "run", "--quiet", "--no-plots", "--out", out, "--trace", tr, f)
		require.Equal(t, exitUsage, code, tr)
		require.Contains(t, stderr, "--trace "+tr+" lies in the output folder "+out, tr)
		require.NoDirExists(t, out, tr)
	}
	code, _, stderr := nicsim(t, "run", "--quiet", "--no-plots", "--force", "--out", out, "--trace", f, f)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--trace "+f+" is the input file "+f)
	require.Equal(t, smallRun, readFile(t, f))

	other := writeFile(t, root, "results.json", "mine")
	code, _, stderr = nicsim(t, "run", "--quiet", "--no-plots", "--out", out, "--trace", other, f)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "--trace "+other+" exists; name another file, or replace it with --force; nothing was run")
	require.Equal(t, "mine", readFile(t, other))
	require.NoDirExists(t, out)
	code, _, stderr = nicsim(t, "run", "--quiet", "--no-plots", "--force", "--out", out, "--trace", other, f)
	require.Equal(t, exitOK, code, stderr)
	require.NotEqual(t, "mine", readFile(t, other))
	require.Contains(t, readFile(t, filepath.Join(out, "meta.json")), other)
}
