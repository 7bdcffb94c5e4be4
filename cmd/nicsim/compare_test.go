package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// runWorkload runs a built-in workload into a temporary folder.
func runWorkload(t *testing.T, file string, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	args := append([]string{"run", "../../workloads/" + file, "--out", out, "--quiet"}, extra...)
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch(args, &so, &se), se.String())
	return out
}

func TestCompareUnchangedModelPassesAndSlowerHostIsCaught(t *testing.T) {
	base := runWorkload(t, "pcie-dma.yaml")
	same := runWorkload(t, "pcie-dma.yaml")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"compare", base, same}, &so, &se), se.String())
	require.Contains(t, so.String(), "no figure changed")

	// A deliberate model change: a slower host read (docs/sources.md 1.1 E5
	// 477.6 ns fixed part raised to 600 ns) must be a regression.
	slow := runWorkload(t, "pcie-dma.yaml", "--set", "adapter.pcie.host_read_latency_fixed_ns=600")
	so.Reset()
	se.Reset()
	require.Equal(t, 1, dispatch([]string{"compare", base, slow}, &so, &se))
	require.Contains(t, so.String(), "REGRESSION")
	require.Contains(t, so.String(), "latency_ns_p50")
	require.Contains(t, se.String(), "regression(s)")

	// A loose enough threshold accepts the change.
	so.Reset()
	se.Reset()
	args := []string{"compare", base, slow}
	for _, m := range []string{"throughput_mops", "goodput_gbps", "latency_ns_mean", "latency_ns_p50", "latency_ns_p99"} {
		args = append(args, "--threshold", m+"=50")
	}
	require.Equal(t, 0, dispatch(args, &so, &se), so.String()+se.String())
}

func TestCompareBenchfmtAndBadInput(t *testing.T) {
	base := runWorkload(t, "pcie-dma.yaml")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"compare", "--format", "benchfmt", base}, &so, &se), se.String())
	require.Contains(t, so.String(), "BenchmarkNicsim/workload=pcie-dma/gen=reads ")
	require.Contains(t, so.String(), "Unit p50-ns better=lower")

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compare", base}, 2, "want BASE and NEW"},
		{[]string{"compare", base, base, "--threshold", "bogus=1"}, 2, "unknown metric"},
		{[]string{"compare", base, base, "--format", "xml"}, 2, "not one of"},
		{[]string{"compare", base, filepath.Join(t.TempDir(), "nope")}, 1, "reading results"},
	} {
		so.Reset()
		se.Reset()
		require.Equal(t, c.code, dispatch(c.args, &so, &se), "%v", c.args)
		require.Contains(t, se.String(), c.msg, "%v", c.args)
	}
}
