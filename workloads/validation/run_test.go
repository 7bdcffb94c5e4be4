package validation

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

func runTiny(t *testing.T, src string, jobs int) *Report {
	t.Helper()
	f, err := LoadBytes("workloads/validation/tiny.yaml", []byte(src))
	require.NoError(t, err)
	rep, err := Run([]*File{f}, Options{Jobs: jobs})
	require.NoError(t, err)
	return rep
}

func TestRowsAreJudgedByToleranceRangeOrReason(t *testing.T) {
	rep := runTiny(t, tiny, 1)
	require.Len(t, rep.Outcomes, 3)
	got := map[string]Verdict{}
	for _, o := range rep.Outcomes {
		got[o.Row.ID] = o.Verdict
	}
	require.Equal(t, map[string]Verdict{"lat-64": Within, "lat-ratio": Within, "lat-gone": NotModelled}, got)
	require.InDelta(t, 546, rep.Outcomes[0].Value, 546*0.05)
	require.True(t, math.IsNaN(rep.Outcomes[2].Value))
	require.True(t, math.IsNaN(rep.Outcomes[1].ErrorPct()), "a range row has no error against its bound")
}

func TestCalibrationRowThatMissesIsCalibrationOutside(t *testing.T) {
	src := strings.Replace(tiny, "      tolerance_pct: 5\n", "      tolerance_pct: 5\n      calibration: true\n", 1)
	src = strings.Replace(src, "      published: 546\n", "      published: 400\n", 1)
	rep := runTiny(t, src, 1)
	require.Equal(t, CalibrationOutside, rep.Outcomes[0].Verdict)
	require.False(t, rep.Outcomes[0].Verdict.Holds())
}

// TestReportAndPlotsAreByteIdentical: the same files give the same report
// and plot bytes whatever the number of jobs, and the report names no
// absolute path.
func TestReportAndPlotsAreByteIdentical(t *testing.T) {
	outputs := make([]map[string][]byte, 2)
	for i, jobs := range []int{1, 2} {
		rep := runTiny(t, tiny, jobs)
		dir := t.TempDir()
		img := filepath.Join(dir, "img")
		files, err := rep.WritePlots(img)
		require.NoError(t, err)
		require.Len(t, files, 1)
		outputs[i] = map[string][]byte{"report": rep.Render(RenderOptions{DocDir: dir, ImgDir: img})}
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			outputs[i][filepath.Base(f)] = data
		}
		require.NotContains(t, string(outputs[i]["report"]), dir)
		require.Contains(t, string(outputs[i]["report"]), "](img/validation-tiny-lat.svg)")
	}
	require.Equal(t, outputs[0], outputs[1])
}

func TestWritePlotsRemovesOnlyItsOwnStalePlots(t *testing.T) {
	rep := runTiny(t, tiny, 1)
	dir := t.TempDir()
	stale := filepath.Join(dir, PlotPrefix+"gone-plot.svg")
	other := filepath.Join(dir, "whatif.png")
	for _, p := range []string{stale, other} {
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	_, err := rep.WritePlots(dir)
	require.NoError(t, err)
	require.NoFileExists(t, stale)
	require.FileExists(t, other)
	require.FileExists(t, filepath.Join(dir, PlotPrefix+"tiny-lat.svg"))
}

func TestCompareCallsOnlyLostVerdictsRegressions(t *testing.T) {
	kept := KeptVerdicts{Rows: []KeptVerdict{{ID: "a", Verdict: Within}, {ID: "b", Verdict: Outside},
		{ID: "c", Verdict: Calibration}, {ID: "d", Verdict: Within}, {ID: "e", Verdict: NotModelled}}}
	now := KeptVerdicts{Rows: []KeptVerdict{{ID: "a", Verdict: Outside}, {ID: "b", Verdict: Within},
		{ID: "c", Verdict: CalibrationOutside}, {ID: "e", Verdict: NotModelled}, {ID: "f", Verdict: Outside}}}
	got := Compare(kept, now)
	require.Equal(t, []Change{
		{ID: "a", Was: Within, Now: Outside, Regression: true},
		{ID: "b", Was: Outside, Now: Within},
		{ID: "c", Was: Calibration, Now: CalibrationOutside, Regression: true},
		{ID: "d", Was: Within, Regression: true},
		{ID: "f", Now: Outside},
	}, got)
}

func TestVerdictsFileRoundTrips(t *testing.T) {
	rep := runTiny(t, tiny, 1)
	p := filepath.Join(t.TempDir(), VerdictsFile)
	require.NoError(t, os.WriteFile(p, rep.Verdicts().Encode(), 0o644))
	k, err := ReadVerdicts(p)
	require.NoError(t, err)
	require.Equal(t, rep.Verdicts(), k)
	require.Empty(t, Compare(k, rep.Verdicts()))
	require.NoError(t, os.WriteFile(p, []byte(`{"rows": [], "extra": 1}`), 0o644))
	_, err = ReadVerdicts(p)
	require.ErrorContains(t, err, "unknown field")
}

func TestMeasureReadsPartsStatisticsAndDifferences(t *testing.T) {
	n := uint64(30)
	v := 2.5
	res := &results.Result{Points: []results.PointResult{{
		Generators: []results.GenResult{{Name: "g", Completed: 10, ThroughputMops: 4,
			Parts: []results.PartResult{{Name: "g/fr", Completed: 5, ThroughputMops: 2}}}},
		Stats: []sim.StatValue{{Name: "N", Count: &n}, {Name: "F", Value: &v}, {Name: "H", Hist: &sim.Summary{}}},
	}}}
	scale := 10.0
	m := Measure{Diff: []Measure{{Metric: "stat:N"}, {Metric: "throughput_mops", Generator: "g/fr"}}, Scale: &scale}
	got, err := m.value(res)
	require.NoError(t, err)
	require.Equal(t, (30.0-2)*10, got)
	got, err = (&Measure{Ratio: []Measure{{Metric: "completed", Generator: "g"}, {Metric: "stat:F"}}}).value(res)
	require.NoError(t, err)
	require.Equal(t, 4.0, got)
	got, err = (&Measure{Ratio: []Measure{{Metric: "stat:F"}, {Metric: "failed", Generator: "g"}}}).value(res)
	require.NoError(t, err)
	require.True(t, math.IsNaN(got), "a ratio over zero has no value")
	_, err = (&Measure{Metric: "completed", Generator: "g/inv"}).value(res)
	require.ErrorContains(t, err, `generator g has no part "g/inv" (parts: g/fr)`)
	_, err = (&Measure{Metric: "stat:H"}).value(res)
	require.ErrorContains(t, err, "is a histogram")
	_, err = (&Measure{Metric: "stat:Z"}).value(res)
	require.ErrorContains(t, err, `no statistic "Z"`)
}
