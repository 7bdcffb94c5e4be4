package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// TestRegressCatchesAModelChangeAndPassesAnUnchangedModel: a baseline made
// from the current model reproduces; rerun with a slower host read latency
// (a deliberate model change, docs/sources.md 1.1's E5 fixed part raised from
// 477.6 to 600 ns), regress exits 1 and names the regressed figures.
func TestRegressCatchesAModelChangeAndPassesAnUnchangedModel(t *testing.T) {
	t.Chdir("../..")
	dir := filepath.Join(t.TempDir(), "baselines")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir, "--add", "workloads/pcie-dma.yaml"}, &so, &se), se.String())
	so.Reset()
	se.Reset()
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir}, &so, &se), se.String())
	require.Contains(t, so.String(), "all 1 baselines reproduce")

	// Change the model under the baseline.
	mpath := filepath.Join(dir, "pcie-dma", "baseline.json")
	var m results.Baseline
	b, err := os.ReadFile(mpath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	m.Sets = []string{"adapter.pcie.host_read_latency_fixed_ns=600"}
	require.NoError(t, results.WriteJSON(mpath, m))
	so.Reset()
	se.Reset()
	require.Equal(t, 1, dispatch([]string{"regress", "--dir", dir}, &so, &se))
	require.Contains(t, so.String(), "REGRESSION")
	require.Contains(t, so.String(), "latency_ns_p50")
	require.Contains(t, se.String(), "make baselines")

	// --update accepts the change; then it reproduces again.
	so.Reset()
	se.Reset()
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir, "--update"}, &so, &se), se.String())
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir}, &so, &se), se.String())
}

// TestCommittedBaselinesReproduce: the model still gives the committed
// baselines in results/baselines (make regress). After an intended model
// change, run make baselines and commit the new results.
func TestCommittedBaselinesReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns every baseline")
	}
	t.Chdir("../..")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"regress"}, &so, &se), so.String()+se.String())
}

func TestRegressBadInput(t *testing.T) {
	var so, se bytes.Buffer
	require.Equal(t, 1, dispatch([]string{"regress", "--dir", filepath.Join(t.TempDir(), "none")}, &so, &se))
	require.Contains(t, se.String(), "no such file")
	se.Reset()
	empty := t.TempDir()
	require.Equal(t, 1, dispatch([]string{"regress", "--dir", empty}, &so, &se))
	require.Contains(t, se.String(), "no baselines")
	se.Reset()
	require.Equal(t, 2, dispatch([]string{"regress", "--jobs", "0"}, &so, &se))
	require.Contains(t, se.String(), "out of range")
}

// TestRegressReportListsEveryChangedFigureAndExitsZero: --report lists the
// figures that moved, even within their thresholds, and exits 0 even past
// them; only a baseline it cannot rerun fails it. It compares: with
// --update it is a usage error.
func TestRegressReportListsEveryChangedFigureAndExitsZero(t *testing.T) {
	t.Chdir("../..")
	dir := filepath.Join(t.TempDir(), "baselines")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir, "--add", "workloads/pcie-dma.yaml"}, &so, &se), se.String())
	setBaselineSets(t, filepath.Join(dir, "pcie-dma", "baseline.json"), "adapter.pcie.host_read_latency_fixed_ns=480")
	so.Reset()
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir}, &so, &se), se.String())
	require.NotContains(t, so.String(), "latency_ns_p50", "within its threshold, a plain regress lists nothing")
	so.Reset()
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir, "--report"}, &so, &se), se.String())
	require.Contains(t, so.String(), "latency_ns_p50")
	require.Contains(t, so.String(), "listed every figure that changed in the 1 baselines")

	setBaselineSets(t, filepath.Join(dir, "pcie-dma", "baseline.json"), "adapter.pcie.host_read_latency_fixed_ns=600")
	so.Reset()
	require.Equal(t, 1, dispatch([]string{"regress", "--dir", dir}, &so, &se))
	require.Equal(t, 0, dispatch([]string{"regress", "--dir", dir, "--report"}, &so, &se), "a report does not fail on a regression")
	require.Contains(t, so.String(), "REGRESSION")

	se.Reset()
	require.Equal(t, 2, dispatch([]string{"regress", "--dir", dir, "--report", "--update"}, &so, &se))
	require.Contains(t, se.String(), "--report with --update: give only one of")
	setBaselineSets(t, filepath.Join(dir, "pcie-dma", "baseline.json"), "adapter.no_such_key=1")
	se.Reset()
	require.Equal(t, 1, dispatch([]string{"regress", "--dir", dir, "--report"}, &so, &se), "a baseline that cannot be rerun fails the report")
	require.Contains(t, se.String(), "could not be rerun")
}

// setBaselineSets makes the baseline at path rerun with sets.
func setBaselineSets(t *testing.T, path string, sets ...string) {
	t.Helper()
	var m results.Baseline
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	m.Sets = sets
	require.NoError(t, results.WriteJSON(path, m))
}
