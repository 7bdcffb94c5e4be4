package workloads

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPresetValuesThatDifferFromTheBaseCiteTheirOwn: a device preset's
// value that differs from its base's has a source of its own, so a reader
// of `nicsim presets` never sees the base's reason next to another value.
func TestPresetValuesThatDifferFromTheBaseCiteTheirOwn(t *testing.T) {
	for _, p := range Presets() {
		if p.Base == "" {
			continue
		}
		base, ok := PresetByName(p.Base)
		require.True(t, ok, "%s: base %q", p.Name, p.Base)
		baseVals := map[string]string{}
		for _, v := range base.Values() {
			baseVals[v.Key] = v.Value
		}
		for _, v := range p.Values() {
			if v.Value != baseVals[v.Key] {
				require.False(t, strings.HasPrefix(v.Source, "as "+p.Base+":"),
					"%s: %s = %s differs from %s's %s but cites its source", p.Name, v.Key, v.Value, p.Base, baseVals[v.Key])
			}
		}
	}
}

// TestDevicePresetsSayWhatCalibratedThem: every device preset has at least
// one value calibrated from its own source, and says so.
func TestDevicePresetsSayWhatCalibratedThem(t *testing.T) {
	for _, p := range Presets() {
		if p.Base == "" {
			continue
		}
		n := 0
		for _, s := range p.Sources {
			if strings.HasPrefix(s.Source, "calibrated once from docs/sources.md") {
				n++
			}
		}
		require.Positive(t, n, "%s: no value says it is calibrated once from docs/sources.md", p.Name)
	}
	g, ok := PresetByName(DefaultPreset)
	require.True(t, ok)
	require.Equal(t, "generic", g.Name)
}
