package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWriteResultsWritesWhatEncodeJSONGives: results.json on disk is the
// bytes of EncodeJSON, and the CSV files those of their writers.
func TestWriteResultsWritesWhatEncodeJSONGives(t *testing.T) {
	r := seriesResult(2)
	dir := t.TempDir()
	require.NoError(t, WriteResults(dir, r))
	want, err := EncodeJSON(r)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, ResultsJSON))
	require.NoError(t, err)
	require.Equal(t, want, got)
	var ts bytes.Buffer
	require.NoError(t, WriteTimeseriesCSV(&ts, r))
	got, err = os.ReadFile(filepath.Join(dir, TimeseriesCSV))
	require.NoError(t, err)
	require.Equal(t, ts.Bytes(), got)
}

// TestWriteResultsLeavesNoPartialFile: a result that cannot be encoded (a
// figure that is not a number) is an error, and leaves no results.json
// behind, not even the one an earlier run wrote into the folder.
func TestWriteResultsLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteResults(dir, seriesResult(3)))
	r := seriesResult(3)
	r.Points[2].Utilisation[0].Utilisation = math.NaN()
	require.ErrorContains(t, WriteResults(dir, r), "NaN")
	_, err := os.Stat(filepath.Join(dir, ResultsJSON))
	require.ErrorIs(t, err, os.ErrNotExist)
}
