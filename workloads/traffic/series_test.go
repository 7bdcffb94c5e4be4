package traffic

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// TestTimeseriesCoversWarmupAndAddsUpToTheWindow: timeseries.csv has one
// row per interval from the end of setup, the warm-up intervals marked
// unmeasured, and the completions of the measured intervals add up to the
// window's throughput.
func TestTimeseriesCoversWarmupAndAddsUpToTheWindow(t *testing.T) {
	f, err := workloads.Load("../quickstart.yaml", workloads.Options{Sets: []string{"run.duration_us=200", "run.warmup_us=20"}})
	require.NoError(t, err)
	res, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, results.WriteTimeseriesCSV(&b, res))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var gen, res0 [][]string
	for _, r := range rows[1:] {
		switch {
		case r[col["row"]] == results.RowGenerator:
			gen = append(gen, r)
		case r[col["name"]] == "Host.Core[0]":
			res0 = append(res0, r)
		}
	}
	rows = gen
	require.Len(t, rows, 20/2+100, "2 us intervals: 10 of warm-up, 100 measured")
	require.Len(t, res0, 100, "a resource's series covers the measured window")
	var measured, warm uint64
	for i, r := range rows {
		require.Equal(t, results.RowGenerator, r[col["row"]])
		start, _ := strconv.ParseFloat(r[col["start_us"]], 64)
		require.Equal(t, float64(2*i), start)
		n, _ := strconv.ParseUint(r[col["completed"]], 10, 64)
		if r[col["measured"]] == "true" {
			measured += n
		} else {
			warm += n
		}
	}
	require.NotZero(t, warm, "warm-up completions are in the series")
	g := res.Points[0].Generators[0]
	want := g.ThroughputMops * float64(g.WindowPS) / 1e6
	require.InDelta(t, want, float64(measured), math.Max(1, want*1e-5))
	require.Equal(t, "", rows[0][col["utilisation"]], "no utilisation on a generator row")
}
