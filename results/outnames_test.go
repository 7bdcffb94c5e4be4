package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every file nicsim writes in an output folder is one of the names it
// keeps (outnames.go), so a rerun may replace the folder; any other entry
// is foreign, and the first one is named.
func TestOutputFolderRefusesOnlyNamesNicsimDoesNotWrite(t *testing.T) {
	dir := t.TempDir()
	r := seriesResult(1)
	require.NoError(t, WriteRun(dir, r, Config{}, Meta{}))
	_, err := WritePlots(dir, r, PlotSpec{Metrics: DefaultPlotMetrics})
	require.NoError(t, err)
	s, err := NewPointStore(dir)
	require.NoError(t, err)
	require.NoError(t, s.Put(3, &r.Points[0]))
	for _, f := range []string{CPUProfile, MemProfile, filepath.Join(PointsDir, "4.json.tmp")} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	foreign, err := foreignEntry(dir)
	require.NoError(t, err)
	require.Empty(t, foreign)

	for _, f := range []string{"notes.txt", "timeseries-mine.png", "x-vs-y.svg", filepath.Join(PointsDir, "notes.json")} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		foreign, err = foreignEntry(dir)
		require.NoError(t, err)
		require.Equal(t, f, foreign)
		require.NoError(t, os.Remove(p))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "plots"), 0o755))
	foreign, _ = foreignEntry(dir)
	require.Equal(t, "plots"+string(filepath.Separator), foreign)
}

// A folder that gains a foreign entry while its new run is written is not
// replaced: Commit fails, naming it, and the new results stay where they
// were written, past Abort.
func TestCommitKeepsAFolderThatGainedAForeignFile(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.Mkdir(dest, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dest, MetaJSON), []byte("{}"), 0o644))
	o, err := StageOutDir(dest, nil, true)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(o.Path(ResultsJSON), []byte("new"), 0o644))
	notes := filepath.Join(dest, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
	err = o.Commit()
	require.ErrorContains(t, err, "output folder "+dest+" holds notes.txt")
	require.ErrorContains(t, err, "(the results are in "+o.Tmp+")")
	o.Abort()
	require.FileExists(t, notes)
	require.FileExists(t, o.Path(ResultsJSON))
}
