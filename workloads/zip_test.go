package workloads

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeTemp(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const zipBase = `name: z
adapter: {preset: generic}
run: {seed: 1, ops: 100}
regions: [{name: data, pages: 64, page_bytes: 4096, rights: [remote_read]}]
generators: [{name: l, kind: translate, region: data, outstanding: 4, length_bytes: 64, align_bytes: 64, access: remote_read}]
`

func TestZippedSweepPairsValuesByPosition(t *testing.T) {
	f, err := Load(writeTemp(t, zipBase+`sweep_mode: zip
sweep:
  regions.data.pages: [64, 128, 256]
  generators.l.outstanding: [1, 2, 4]
`), Options{})
	require.NoError(t, err)
	require.Len(t, f.Points, 3, "zip: one point per position, not 3x3")
	var labels []string
	for _, w := range f.Points {
		labels = append(labels, Label(w.Point))
	}
	require.Equal(t, []string{
		"regions.data.pages=64 generators.l.outstanding=1",
		"regions.data.pages=128 generators.l.outstanding=2",
		"regions.data.pages=256 generators.l.outstanding=4",
	}, labels)
	require.Equal(t, labels, SweepLabels(f.Sweep), "merge rebuilds the same labels")
	require.True(t, f.Sweep[0].Zip)
}

func TestZippedSweepNeedsListsOfOneLength(t *testing.T) {
	_, err := Load(writeTemp(t, zipBase+`sweep_mode: zip
sweep:
  regions.data.pages: [64, 128, 256]
  generators.l.outstanding: [1, 2]
`), Options{})
	require.ErrorContains(t, err, "w.yaml:9:")
	require.ErrorContains(t, err, "one length")
}

func TestSweepModeMustBeCartesianOrZip(t *testing.T) {
	_, err := Load(writeTemp(t, zipBase+"sweep_mode: diagonal\nsweep: {regions.data.pages: [64]}\n"), Options{})
	require.ErrorContains(t, err, "expected cartesian or zip")
	_, err = Load(writeTemp(t, zipBase+"sweep_mode: zip\n"), Options{})
	require.ErrorContains(t, err, "without a sweep")
	f, err := Load(writeTemp(t, zipBase+"sweep_mode: cartesian\nsweep: {regions.data.pages: [64, 128], generators.l.outstanding: [1, 2]}\n"), Options{})
	require.NoError(t, err)
	require.Len(t, f.Points, 4)
}
