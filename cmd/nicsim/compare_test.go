package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
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

func TestCompareExitsZeroUnchangedAndOneOnARegression(t *testing.T) {
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

func TestCompareExitsTwoOnBadInputAndWritesBenchfmt(t *testing.T) {
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
		{[]string{"compare", base, filepath.Join(t.TempDir(), "nope")}, 2, "reading results"},
		{[]string{"compare", "--format", "benchfmt", filepath.Join(t.TempDir(), "nope")}, 2, "reading results"},
	} {
		so.Reset()
		se.Reset()
		require.Equal(t, c.code, dispatch(c.args, &so, &se), "%v", c.args)
		require.Contains(t, se.String(), c.msg, "%v", c.args)
	}
}

// TestCompareExitsTwoOnAPartialResult: an interrupted run is not evidence
// either way; compare refuses it as unusable input, not as a regression.
func TestCompareExitsTwoOnAPartialResult(t *testing.T) {
	base := runWorkload(t, "pcie-dma.yaml")
	b, err := os.ReadFile(filepath.Join(base, "results.json"))
	require.NoError(t, err)
	part := filepath.Join(t.TempDir(), "partial.json")
	require.NoError(t, os.WriteFile(part, bytes.Replace(b, []byte(`"partial": false`), []byte(`"partial": true`), 1), 0o644))
	var so, se bytes.Buffer
	require.Equal(t, 2, dispatch([]string{"compare", base, part}, &so, &se))
	require.Contains(t, se.String(), "partial")
}

// seedBench sweeps pcie-dma over six seeds into a folder and returns its
// benchmark-format output.
func seedBench(t *testing.T, extra ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "seeds")
	args := append([]string{"sweep", "../../workloads/pcie-dma.yaml", "--out", out, "--quiet", "--no-plots", "--jobs", "2",
		"--set", "sweep={run.seed: [1, 2, 3, 4, 5, 6]}", "--set", "run.duration_us=30"}, extra...)
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch(args, &so, &se), se.String())
	so.Reset()
	require.Equal(t, 0, dispatch([]string{"compare", "--format", "benchfmt", out}, &so, &se), se.String())
	return so.Bytes()
}

// benchSamples reads benchmark-format output: the values of unit per
// benchmark name, and whether any unit is marked exact.
func benchSamples(t *testing.T, data []byte, unit string) (map[string][]float64, bool) {
	t.Helper()
	out := map[string][]float64{}
	exact := false
	r := benchfmt.NewReader(bytes.NewReader(data), "bench.txt")
	for r.Scan() {
		switch x := r.Result().(type) {
		case *benchfmt.Result:
			for _, v := range x.Values {
				if v.OrigUnit == unit {
					out[string(x.Name)] = append(out[string(x.Name)], v.Value)
				}
			}
		case *benchfmt.UnitMetadata:
			exact = exact || (x.Key == "assume" && x.Value == "exact")
		case *benchfmt.SyntaxError:
			t.Fatal(x)
		}
	}
	return out, exact
}

// TestSeedSweepGivesBenchstatRealSamples: a sweep over run.seed becomes
// six samples of each benchmark (the seed is not part of the name), not
// marked exact, and benchstat's test (Mann-Whitney U, as benchstat runs
// it) tells a slower host from the base at p < 0.05.
func TestSeedSweepGivesBenchstatRealSamples(t *testing.T) {
	base, exact := benchSamples(t, seedBench(t), "p50-ns")
	require.False(t, exact, "figures of different seeds differ: not exact")
	slow, _ := benchSamples(t, seedBench(t, "--set", "adapter.pcie.host_read_latency_fixed_ns=600"), "p50-ns")
	name := "Nicsim/workload=pcie-dma/gen=reads"
	require.Len(t, base[name], 6, "one sample per seed")
	require.NotEqual(t, slices.Min(base[name]), slices.Max(base[name]), "seeds give different samples")
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(base[name], &benchmath.DefaultThresholds),
		benchmath.NewSample(slow[name], &benchmath.DefaultThresholds))
	require.Less(t, c.P, 0.05, "a 25 %% slower host read is significant over six seeds")

	one := runWorkload(t, "pcie-dma.yaml")
	var so, se bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"compare", "--format", "benchfmt", one}, &so, &se))
	_, exact = benchSamples(t, so.Bytes(), "p50-ns")
	require.True(t, exact, "one seed: deterministic, so exact")
}
