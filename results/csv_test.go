package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nicsim/nicsim/workloads"
)

// csvResult is a two-point sweep over two axes: point 0 with a generator
// that has parts and no translation lookups, point 1 with lookups.
func csvResult() *Result {
	axes := []workloads.SweepAxis{{Path: "adapter.pcie.lanes", Values: []string{"8", "16"}}, {Path: "generators.g.inline_page_list", Values: []string{"true"}}}
	pt := func(lanes string, mttLookups uint64) PointResult {
		over := []workloads.Override{{Path: axes[0].Path, Value: lanes}, {Path: axes[1].Path, Value: "true"}}
		g := GenResult{Name: "g", Kind: "fast_register_invalidate", Completed: 10, WindowPS: 1e6, ThroughputMops: 10 * 307.52768000000003 / 307.52768000000003,
			LatencyNS: Latency{Count: 10, Mean: 1.5, P50: 1, P99: 2, P999: 2, Max: 2, Min: 1},
			Parts:     []PartResult{{Name: "g/fast_register", Kind: "fast_register", Completed: 10, ThroughputMops: 10}}}
		p := PointResult{Label: workloads.Label(over), Point: over, StopReason: "duration", WindowPS: 1e6, Generators: []GenResult{g}}
		p.PCIe.UpUtilization = 0.5
		p.MTT = TPTResult{MPTLookups: 10, MPTHitRate: 0.9, MTTLookups: mttLookups, MTTHitRate: 0}
		if mttLookups > 0 {
			p.MTT.MTTHitRate = 0.25
		}
		return p
	}
	return &Result{Workload: "w", Seed: 1, Sweep: axes, Points: []PointResult{pt("8", 0), pt("16", 4)}}
}

func readCSV(t *testing.T, r *Result) (map[string]int, [][]string) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, r))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		require.NotContains(t, col, h, "column %s twice", h)
		col[h] = i
	}
	return col, rows[1:]
}

// TestResultsCSVHasAColumnPerAxisAndTellsPartsApart: every sweep axis is a
// column of its own with the point's value; generator and part rows are
// told apart by the row column, and part rows leave the point's figures
// empty, so a sum over generator rows counts each figure once.
func TestResultsCSVHasAColumnPerAxisAndTellsPartsApart(t *testing.T) {
	col, rows := readCSV(t, csvResult())
	require.Len(t, rows, 4)
	for _, c := range []string{"point", "adapter.pcie.lanes", "generators.g.inline_page_list", "row", "generator", "part", "kind"} {
		require.Contains(t, col, c)
	}
	require.Equal(t, []string{"0", "8", "true", RowGenerator, "g", "", "fast_register_invalidate"}, rows[0][:7])
	require.Equal(t, []string{"0", "8", "true", RowPart, "g", "fast_register", "fast_register"}, rows[1][:7])
	require.Equal(t, []string{"1", "16"}, rows[2][:2])
	require.Equal(t, "0.5", rows[0][col["pcie_up_utilization"]])
	require.Equal(t, "", rows[1][col["pcie_up_utilization"]], "part rows leave point figures empty")
	require.Equal(t, "", rows[1][col["stop_reason"]])
	require.Equal(t, "10", rows[1][col["throughput_mops"]])
	for _, r := range rows {
		_, err := strconv.Atoi(r[col["adapter.pcie.lanes"]])
		require.NoError(t, err, "an axis of numbers holds numbers")
	}
}

// TestResultsCSVLeavesNoDataEmpty: a hit rate without lookups is empty,
// not 0; one with lookups is its value, even 0.
func TestResultsCSVLeavesNoDataEmpty(t *testing.T) {
	r := csvResult()
	col, rows := readCSV(t, r)
	require.Equal(t, "", rows[0][col["mtt_hit_rate"]], "no MTT lookups: no data")
	require.Equal(t, "0.25", rows[2][col["mtt_hit_rate"]])
	require.Equal(t, "0.9", rows[0][col["mpt_hit_rate"]])
	r.Points[1].MTT.MTTHitRate = 0
	col, rows = readCSV(t, r)
	require.Equal(t, "0", rows[2][col["mtt_hit_rate"]], "lookups that all missed: a hit rate of 0")
	r.Points[0].Generators[0].LatencyNS = Latency{}
	col, rows = readCSV(t, r)
	require.Equal(t, "", rows[0][col["latency_ns_p50"]])
	require.Equal(t, "0", rows[0][col["latency_ns_count"]])
}

// TestResultsCSVHasNoGoodputForAKindThatMovesNoPayload: a registration's
// goodput cell is empty and its own figure and binding resource are
// columns; a data kind's goodput is its value, even 0.
func TestResultsCSVHasNoGoodputForAKindThatMovesNoPayload(t *testing.T) {
	r := csvResult()
	g := &r.Points[0].Generators[0]
	g.Figure = Figure{Name: "registered_pages", Unit: "Mpages/s", Value: 10}
	g.BoundBy = BoundBy{Resource: "NIC.PCIe.Up", Utilisation: 0.99}
	d := &r.Points[1].Generators[0]
	d.MovesPayload, d.Kind = true, "rdma_write"
	col, rows := readCSV(t, r)
	require.Equal(t, "", rows[0][col["goodput_gbps"]])
	require.Equal(t, "registered_pages", rows[0][col["figure_name"]])
	require.Equal(t, "10", rows[0][col["figure_value"]])
	require.Equal(t, "NIC.PCIe.Up", rows[0][col["bound_by_resource"]])
	require.Equal(t, "0", rows[2][col["goodput_gbps"]], "a data kind that moved nothing: 0")
	require.Equal(t, "", rows[2][col["figure_value"]], "no figure of its own")
}

// TestRoundKeepsEachFigureToItsPrecision: rates to 6 significant digits,
// latencies to the picosecond, without float noise.
func TestRoundKeepsEachFigureToItsPrecision(t *testing.T) {
	g := GenResult{GoodputGbps: 307.52768000000003, ThroughputMops: 9.384615384615385,
		LatencyNS: Latency{Mean: 13687.143399497487, P50: 13459.456}}
	Round(&g)
	require.Equal(t, 307.528, g.GoodputGbps)
	require.Equal(t, 9.38462, g.ThroughputMops)
	require.Equal(t, 13687.143, g.LatencyNS.Mean)
	require.Equal(t, 13459.456, g.LatencyNS.P50)
	require.Equal(t, "307.528", strconv.FormatFloat(g.GoodputGbps, 'g', -1, 64))
}

// TestTwentyCurvesGetDistinctStylesAndTheLegendSitsOutside: a sweep plot
// of 20 curves gives each its own colour and dash pattern, keeps its
// legend out of the data area, and puts an axis spanning decades on a log
// scale.
func TestTwentyCurvesGetDistinctStylesAndTheLegendSitsOutside(t *testing.T) {
	axes := []workloads.SweepAxis{{Path: "a", Values: []string{"1", "10", "100", "1000"}}, {Path: "b"}}
	for i := range 20 {
		axes[1].Values = append(axes[1].Values, strconv.Itoa(i))
	}
	r := &Result{Workload: "w", Sweep: axes}
	for _, a := range axes[0].Values {
		for _, b := range axes[1].Values {
			over := []workloads.Override{{Path: "a", Value: a}, {Path: "b", Value: b}}
			r.Points = append(r.Points, PointResult{Label: workloads.Label(over), Point: over,
				Generators: []GenResult{{Name: "g", ThroughputMops: 1}}})
		}
	}
	m, _ := MetricByName("throughput_mops")
	f, err := metricPlot(r, "a", &m)
	require.NoError(t, err)
	require.Equal(t, 20, f.curves)
	inside := f.p.Legend.Rectangle(draw.Canvas{})
	require.Zero(t, inside.Max.X-inside.Min.X, "nothing drawn over the data")
	require.Greater(t, f.legendWidth(), vg.Length(0), "the legend has its own column right of the data")
	require.IsType(t, plot.LogScale{}, f.p.X.Scale, "1..1000 spans three decades")
	seen := map[string]bool{}
	for i := range PlotCurvesMax {
		st := curveStyle(i)
		key := fmt.Sprint(st.Color, st.Dashes)
		require.False(t, seen[key], "curve %d repeats a style", i)
		seen[key] = true
	}
	files, err := save(f, t.TempDir(), "p", 4*vg.Inch)
	require.NoError(t, err)
	require.Len(t, files, 2)
}

// TestBoundByNamesTheResourcesSaturatedBesideIt: the summary text and
// results.csv name the other saturated resources after the bound one
// (BoundBy.Also; empty column without them), and warnings, a list that is
// not a figure, are no column.
func TestBoundByNamesTheResourcesSaturatedBesideIt(t *testing.T) {
	b := BoundBy{Resource: "B.NIC.PCIe.Down", Utilisation: 1, Also: []string{"NIC.PCIe.Up", "Wire.BtoA"}}
	require.Equal(t, "B.NIC.PCIe.Down 100% (also NIC.PCIe.Up, Wire.BtoA)", b.String())
	require.Equal(t, "NIC.PCIe.Up 99%", BoundBy{Resource: "NIC.PCIe.Up", Utilisation: 0.99}.String())
	r := csvResult()
	r.Points[0].Generators[0].BoundBy = b
	r.Points[0].Warnings = []string{"a warning"}
	col, rows := readCSV(t, r)
	require.Equal(t, "NIC.PCIe.Up Wire.BtoA", rows[0][col["bound_by_also"]])
	require.Equal(t, "", rows[2][col["bound_by_also"]])
	require.NotContains(t, col, "warnings")
}
