package results

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim/simtest"
)

// roundedShortest is a derived figure's text by its definition: the
// value rounded to SignificantDigits, in the shortest form that reads
// back as the rounded value.
func roundedShortest(v float64) string {
	return strconv.FormatFloat(roundFloat(v, -1), 'g', -1, 64)
}

// TestDerivedFigureIsWrittenRoundedInShortestForm: timeseries.csv writes a
// figure's rounded digits directly; they are the text of its definition
// for every float: random bit patterns (every magnitude, subnormals,
// NaNs, infinities), values that round up to the next power of ten, and
// the edges of the exponent form.
func TestDerivedFigureIsWrittenRoundedInShortestForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(simtest.Seed(t, 0), 0))
	check := func(v float64) {
		require.Equal(t, roundedShortest(v), string(appendF(nil, v)), "%b (%v)", math.Float64bits(v), v)
	}
	for _, v := range []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-1000, 999999.5, 9999995, 0.0001, 0.00001, 1e-5 * 0.999999,
		123456, 1234567, 1e21, 307.52768000000003} {
		check(v)
		check(-v)
	}
	for range 200000 {
		check(math.Float64frombits(rng.Uint64()))
		e := rng.IntN(40) - 20
		check(math.Round(rng.Float64()*1e7) / 1e7 * math.Pow(10, float64(e)))
	}
}

// TestTimeseriesCSVQuotesTextCells: a generator or resource name that
// needs quoting in CSV is quoted, and a reader gets every row back with
// the header's cell count.
func TestTimeseriesCSVQuotesTextCells(t *testing.T) {
	r := seriesResult(1)
	r.Points[0].Series.Generators[0].Name = `a, "b"`
	r.Points[0].Series.Resources[0].Name = " lead"
	var b bytes.Buffer
	require.NoError(t, WriteTimeseriesCSV(&b, r))
	require.Contains(t, b.String(), `0,64,generator,"a, ""b""",0,2,`)
	require.Contains(t, b.String(), `0,64,resource," lead",20,22,true,,,,,,,,,`)
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+4*(2*110+118*100))
	for _, row := range rows {
		require.Len(t, row, len(rows[0]))
	}
}
