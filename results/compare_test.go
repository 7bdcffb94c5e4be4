package results

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/nicsim/nicsim/workloads"
)

func sampleResult() *Result {
	return &Result{Workload: "w", Seed: 1, Points: []PointResult{{
		Label: "pages=8",
		Point: []workloads.Override{{Path: "pages", Value: "8"}},
		Generators: []GenResult{
			{Name: "fr", Kind: "k", Completed: 1000, ThroughputMops: 5, GoodputGbps: 10,
				LatencyNS: Latency{Count: 1000, Mean: 500, P50: 480, P99: 900, P999: 1200, Max: 1500}},
			{Name: "inv", Kind: "k", Completed: 1000, ThroughputMops: 5,
				LatencyNS: Latency{Count: 1000, Mean: 300, P50: 290, P99: 400, P999: 500, Max: 600}},
		},
		MTT: TPTResult{MPTHitRate: 0.9, MTTHitRate: 0.5},
	}}}
}

func verdictOf(t *testing.T, c *Comparison, gen, metric string) Verdict {
	t.Helper()
	for _, ch := range c.Changes {
		if ch.Generator == gen && ch.Metric == metric {
			return ch.Verdict
		}
	}
	t.Fatalf("no change for %s/%s", gen, metric)
	return ""
}

func TestCompareIdenticalResultsHaveNoRegression(t *testing.T) {
	c, err := CompareResults(sampleResult(), sampleResult(), nil)
	require.NoError(t, err)
	require.False(t, c.Regressed())
	for _, ch := range c.Changes {
		require.Equal(t, Unchanged, ch.Verdict, "%+v", ch)
	}
}

func TestCompareIsDirectionAware(t *testing.T) {
	// Latency up and throughput down are regressions; the reverse improves.
	cur := sampleResult()
	g := &cur.Points[0].Generators[0]
	g.LatencyNS.P50 *= 1.10
	g.ThroughputMops *= 0.90
	inv := &cur.Points[0].Generators[1]
	inv.LatencyNS.P50 *= 0.90
	inv.ThroughputMops *= 1.10
	cur.Points[0].MTT.MTTHitRate = 0.4
	c, err := CompareResults(sampleResult(), cur, nil)
	require.NoError(t, err)
	require.Equal(t, Regression, verdictOf(t, c, "fr", "latency_ns_p50"))
	require.Equal(t, Regression, verdictOf(t, c, "fr", "throughput_mops"))
	require.Equal(t, Improved, verdictOf(t, c, "inv", "latency_ns_p50"))
	require.Equal(t, Improved, verdictOf(t, c, "inv", "throughput_mops"))
	require.Equal(t, Regression, verdictOf(t, c, "", "mtt_hit_rate"))
	require.True(t, c.Regressed())
	require.Equal(t, 3, c.Regressions)
}

func TestCompareThresholdsAreRelativeAndOverridable(t *testing.T) {
	cur := sampleResult()
	cur.Points[0].Generators[0].LatencyNS.P99 *= 1.04 // default p99 threshold 5 %
	c, err := CompareResults(sampleResult(), cur, nil)
	require.NoError(t, err)
	require.Equal(t, Within, verdictOf(t, c, "fr", "latency_ns_p99"))
	c, err = CompareResults(sampleResult(), cur, map[string]float64{"latency_ns_p99": 3})
	require.NoError(t, err)
	require.Equal(t, Regression, verdictOf(t, c, "fr", "latency_ns_p99"))

	name, v, err := ParseThreshold("latency_ns_p99=10%")
	require.NoError(t, err)
	require.Equal(t, "latency_ns_p99", name)
	require.Equal(t, 10.0, v)
	_, _, err = ParseThreshold("latency_p99=10")
	require.ErrorContains(t, err, "unknown metric")
	_, _, err = ParseThreshold("latency_ns_p99=-1")
	require.ErrorContains(t, err, "0..1000")
	_, _, err = ParseThreshold("latency_ns_p99")
	require.ErrorContains(t, err, "metric=percent")
}

func TestCompareFailuresFromZeroAreRegressions(t *testing.T) {
	cur := sampleResult()
	cur.Points[0].Generators[0].Failed = 1
	c, err := CompareResults(sampleResult(), cur, nil)
	require.NoError(t, err)
	require.Equal(t, Regression, verdictOf(t, c, "fr", "failed"))
	for _, ch := range c.Changes {
		if ch.Metric == "failed" && ch.Generator == "fr" {
			require.True(t, math.IsInf(ch.ChangePct, 1))
		}
	}
}

func TestCompareMissingGeneratorOrPointIsARegression(t *testing.T) {
	cur := sampleResult()
	cur.Points[0].Generators = cur.Points[0].Generators[:1]
	c, err := CompareResults(sampleResult(), cur, nil)
	require.NoError(t, err)
	require.Equal(t, 1, c.Missing)
	require.True(t, c.Regressed())

	cur = sampleResult()
	cur.Points[0].Label = "pages=16"
	c, err = CompareResults(sampleResult(), cur, nil)
	require.NoError(t, err)
	require.Equal(t, 1, c.Missing)
	require.Equal(t, 1, c.Added)
}

func TestComparePartialResultsAreRefused(t *testing.T) {
	cur := sampleResult()
	cur.Partial = true
	_, err := CompareResults(sampleResult(), cur, nil)
	require.ErrorContains(t, err, "partial")
}

func TestBenchfmtOutputReadsBackWithUnitsAndNames(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteBenchfmt(&buf, sampleResult(), "base"))
	rd := benchfmt.NewReader(&buf, "x")
	var names []string
	units := map[string]string{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			names = append(names, string(rec.Name.Full()))
			require.Equal(t, 1000, rec.Iters)
			require.Equal(t, "base", rec.GetConfig("nicsim-result"))
			require.Equal(t, 5.0, rec.Values[0].Value)
			require.Equal(t, "Mops/s", rec.Values[0].Unit)
		case *benchfmt.UnitMetadata:
			if rec.Key == "better" {
				units[rec.OrigUnit] = rec.Value
			}
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt syntax error: %v", rec)
		}
	}
	require.NoError(t, rd.Err())
	require.Equal(t, []string{"Nicsim/workload=w/pages=8/gen=fr", "Nicsim/workload=w/pages=8/gen=inv"}, names)
	require.Equal(t, "higher", units["Mops/s"])
	require.Equal(t, "lower", units["p99-ns"])
}
