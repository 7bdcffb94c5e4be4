package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run folder holding a file or folder nicsim does not write there is
// refused by run, sweep and merge, --force or not: putting the new folder
// in place replaces the old one whole, which would delete it. The files
// nicsim writes itself (plots, a profile) are never foreign.
func TestRunRefusesFolderWithForeignFiles(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "w.yaml", smallRun)
	out := filepath.Join(root, "o3")
	code, _, stderr := nicsim(t, "run", "--quiet", "--profile", "cpu", "--out", out, f)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = nicsim(t, "run", "--quiet", "--profile", "cpu", "--out", out, f)
	require.Equal(t, exitOK, code, "a rerun over nicsim's own files: %s", stderr)

	notes := writeFile(t, out, "notes.txt", "notes\n")
	sub := mkdir(t, out, "sub")
	for _, flag := range []string{"--quiet", "--force"} {
		code, _, stderr = nicsim(t, "run", "--no-plots", flag, "--out", out, f)
		require.Equal(t, exitFailed, code, flag)
		require.Contains(t, stderr, "output folder "+out+" holds notes.txt, which nicsim does not write there", flag)
		require.Contains(t, stderr, "move "+notes+" out of it, or choose another --out; nothing was run", flag)
	}
	require.NoError(t, os.Remove(notes))
	nine := writeFile(t, root, "nine.yaml", nineRun)
	shard := filepath.Join(root, "shard")
	code, _, stderr = nicsim(t, "sweep", nine, "--quiet", "--no-plots", "--out", shard)
	require.Equal(t, exitOK, code, stderr)
	for _, args := range [][]string{
		{"run", "--quiet", "--out", out, f},
		{"sweep", "--quiet", "--force", "--out", out, nine},
		{"merge", "--force", "--out", out, shard},
	} {
		code, _, stderr = nicsim(t, args...)
		require.Equal(t, exitFailed, code, "%v", args)
		require.Contains(t, stderr, "holds sub"+string(filepath.Separator)+", which nicsim does not write there", "%v", args)
	}
	require.DirExists(t, sub)

	w := mkdir(t, root, "w")
	writeFile(t, w, "results.json", "{}")
	thesis := writeFile(t, w, "thesis.tex", "x")
	code, _, stderr = nicsim(t, "run", "--quiet", "--force", "--out", w, f)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "holds thesis.tex")
	require.FileExists(t, thesis)
}
