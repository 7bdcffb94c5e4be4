//go:build reverseties

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReversedBuildWarnsRecordsItAndWritesNoBaseline: a check build says
// what it is before every command, in its version, in meta.json and in its
// default output folder's name, and regress refuses to write a baseline
// from its figures.
func TestReversedBuildWarnsRecordsItAndWritesNoBaseline(t *testing.T) {
	t.Chdir("../..")
	root, err := os.Getwd()
	require.NoError(t, err)
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"version"}, &so, &se))
	require.Contains(t, so.String(), "same-time order reversed")

	out := filepath.Join(t.TempDir(), "run")
	so.Reset()
	require.Equal(t, 0, dispatch([]string{"run", "workloads/pcie-dma.yaml", "--no-plots", "--quiet", "--out", out}, &so, &se), se.String())
	require.Contains(t, se.String(), "warning: same-time events run last scheduled first")
	meta, err := os.ReadFile(filepath.Join(out, "meta.json"))
	require.NoError(t, err)
	require.Contains(t, string(meta), `"same_time_order": "reversed"`)

	t.Chdir(t.TempDir())
	so.Reset()
	require.Equal(t, 0, dispatch([]string{"run", filepath.Join(root, "workloads/pcie-dma.yaml"), "--no-plots", "--quiet"}, &so, &se), se.String())
	leaves, err := filepath.Glob(filepath.Join("results", "runs", "pcie-dma-1-*"))
	require.NoError(t, err)
	require.Len(t, leaves, 1)
	require.True(t, strings.HasSuffix(leaves[0], "-reversed"), "a check build's default folder never takes an ordinary run's: %s", leaves[0])
	t.Chdir(root)

	dir := filepath.Join(t.TempDir(), "baselines")
	se.Reset()
	require.Equal(t, 2, dispatch([]string{"regress", "--dir", dir, "--add", "workloads/pcie-dma.yaml"}, &so, &se))
	require.Contains(t, se.String(), "never writes them")
	require.NoDirExists(t, dir)
	require.Equal(t, 2, dispatch([]string{"regress", "--update"}, &so, &se))
}

// TestReversedBuildComparesVerdictsAndWritesNoReport: validate in a check
// build compares the verdicts (every one holds with the order reversed)
// but writes neither the report nor its plots, and refuses to rewrite the
// verdicts.
func TestReversedBuildComparesVerdictsAndWritesNoReport(t *testing.T) {
	t.Chdir("../..")
	tmp := t.TempDir()
	doc, img := filepath.Join(tmp, "VALIDATION.md"), filepath.Join(tmp, "img")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"validate", "--doc", doc, "--img", img}, &so, &se), se.String())
	require.Contains(t, se.String(), "leaves "+doc)
	require.NoFileExists(t, doc)
	require.NoDirExists(t, img)
	se.Reset()
	require.Equal(t, 2, dispatch([]string{"validate", "--update-verdicts"}, &so, &se))
	require.Contains(t, se.String(), "never writes them")
}
