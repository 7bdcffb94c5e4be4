package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The summary names what binds each generator, prints no goodput for a
// kind that moves no payload but its own rate, and no latency quantile
// for an empty sample (with a warning).
func TestSummaryNamesBoundOwnRateAndNoQuantileOfAnEmptySample(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "fr.yaml", "run: {warmup_us: 5, duration_us: 50}\ngenerators: [{name: fr, kind: fast_register_invalidate, streams: 1, outstanding: 8}]\n")
	code, stdout, stderr := nicsim(t, "run", f, "--out", filepath.Join(dir, "fr"), "--no-plots")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "bound by")
	require.Contains(t, stdout, "Host.Core[0]", "one QP posting by WQE-by-MMIO is bound by its core")
	require.Contains(t, stdout, "Mpages/s")
	row := summaryRow(t, stdout, "fast_register_invalidate")
	require.Contains(t, row, " - ", "no goodput for a registration")

	// 64 KiB Writes, 1 in flight, a 5 µs window: none completes in it.
	f = writeFile(t, dir, "w.yaml", "run: {warmup_us: 1, duration_us: 5}\ngenerators: [{name: w, kind: rdma_write, size_bytes: 65536}]\n")
	out := filepath.Join(dir, "w")
	code, stdout, stderr = nicsim(t, "run", f, "--out", out, "--no-plots")
	require.Equal(t, exitOK, code, stderr)
	row = summaryRow(t, stdout, "rdma_write")
	require.Regexp(t, `\s-\s+-\s+-\s+-\s+0\s`, row, "p50, p99, p999 and max are -, then 0 failed")
	require.Contains(t, stderr, "no latency figures")
	csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
	require.NoError(t, err)
	require.NotContains(t, string(csv), ",0,0,0,0,", "an empty sample has empty latency cells")
}

// summaryRow is the summary line of the generator of kind.
func summaryRow(t *testing.T, stdout, kind string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, " "+kind+" ") {
			return l + " "
		}
	}
	t.Fatalf("no summary row of kind %s in:\n%s", kind, stdout)
	return ""
}

// A sweep's speed line counts its points in the right number and never
// says more ran at once than there were.
func TestSweepSpeedLineSaysNoMorePointsAtOnceThanRan(t *testing.T) {
	require.Equal(t, " (the 1 point run now)", sweepSpeedTail(1, 2))
	require.Equal(t, " (the 3 points run now, 2 at once)", sweepSpeedTail(3, 2))
	require.Equal(t, " (the 2 points run now, 2 at once)", sweepSpeedTail(2, 8))
}
