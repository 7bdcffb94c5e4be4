package validation

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// TestValidationVerdictsKept runs every validation file and compares each
// row's verdict with verdicts.json: a row that held (within, or a
// calibration that reproduces its figure) and no longer does fails the
// test, and so does any other difference, so the kept file never drifts
// from the model. After an intended change: make validate, then
// `go run ./cmd/nicsim validate --update-verdicts`, and explain every new
// miss in docs/DEVIATIONS.md.
func TestValidationVerdictsKept(t *testing.T) {
	files, err := LoadDir(".")
	require.NoError(t, err)
	rep, err := Run(files, Options{Jobs: 2})
	require.NoError(t, err)
	kept, err := ReadVerdicts(VerdictsFile)
	require.NoError(t, err)
	require.Empty(t, rep.Warnings, "a run that warns may not measure what its row means")
	changes := Compare(kept, rep.Verdicts())
	for _, c := range changes {
		if c.Regression {
			t.Errorf("%v: a figure nicsim reproduced is now outside its tolerance", c)
		} else {
			t.Errorf("%v: %s is out of date; run 'go run ./cmd/nicsim validate --update-verdicts'", c, VerdictsFile)
		}
	}
}

// TestEveryRowCitesASectionOfSources checks that each row's section is a
// section of docs/sources.md and that the published number, as the file
// writes it, appears in that section's text: docs/sources.md stays the one
// record of published values.
func TestEveryRowCitesASectionOfSources(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "sources.md"))
	require.NoError(t, err)
	files, err := LoadDir(".")
	require.NoError(t, err)
	for _, f := range files {
		for i := range f.Rows {
			r := &f.Rows[i]
			text, ok := sourcesSectionText(string(data), r.SourcesSection)
			if !ok {
				t.Errorf("%s: row %s cites docs/sources.md §%s, which does not exist", f.Path, r.ID, r.SourcesSection)
				continue
			}
			num := regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(r.Published.Text) + `($|[^0-9]|\.[^0-9])`)
			require.Truef(t, num.MatchString(text), "%s: row %s: published %s does not appear in docs/sources.md §%s",
				f.Path, r.ID, r.Published.Text, r.SourcesSection)
		}
	}
}

// sourcesSectionText is the text of section sec ("1.1" or "2") of
// docs/sources.md: from its heading to the next heading of the same or a
// higher level.
func sourcesSectionText(doc, sec string) (string, bool) {
	level := "## "
	head := level + sec + ". "
	if strings.Contains(sec, ".") {
		level = "### "
		head = level + sec + " "
	}
	i := strings.Index(doc, "\n"+head)
	if i < 0 {
		return "", false
	}
	rest := doc[i+1:]
	end := len(rest)
	for _, stop := range []string{"\n## ", "\n" + level} {
		if j := strings.Index(rest[1:], stop); j >= 0 && j+1 < end {
			end = j + 1
		}
	}
	if level == "## " {
		// A top-level section keeps its subsections.
		if j := strings.Index(rest[1:], "\n## "); j >= 0 {
			end = j + 1
		} else {
			end = len(rest)
		}
	}
	return rest[:end], true
}

// TestCalibrationRowsNameTheValueTheySet: every calibration row's note
// says which preset value it set ("sets nic.clock_period_ps ..."), and
// that value exists, so the report says what each anchor calibrated.
func TestCalibrationRowsNameTheValueTheySet(t *testing.T) {
	keys := map[string]bool{}
	for _, p := range workloads.Presets() {
		for _, v := range p.Values() {
			keys[v.Key] = true
		}
	}
	sets := regexp.MustCompile(`sets ((?:pcie|nic|mtt|wire)\.[a-z0-9_.]*[a-z0-9_])`)
	files, err := LoadDir(".")
	require.NoError(t, err)
	for _, f := range files {
		for i := range f.Rows {
			r := &f.Rows[i]
			if !r.Calibration {
				continue
			}
			m := sets.FindStringSubmatch(r.Note)
			require.NotNil(t, m, "%s: calibration row %s: its note must say which value it sets", f.Path, r.ID)
			require.True(t, keys[m[1]], "%s: row %s sets %s, which is no preset value", f.Path, r.ID, m[1])
		}
	}
}

// TestBoundByIndexWildcardMatchesAnyInstance: a row's nicsim resource
// "Host.Core[*].MMIO" names every core's MMIO issue path, and nothing
// else: not the core itself, not another host's, not a name that only
// begins the same.
func TestBoundByIndexWildcardMatchesAnyInstance(t *testing.T) {
	b := BoundBy{NICSim: []string{"Host.Core[*].MMIO", "NIC.PCIe.Down", "NIC.Engine[*]"}}
	for name, want := range map[string]bool{
		"Host.Core[0].MMIO":       true,
		"Host.Core[15].MMIO":      true,
		"Host.Core[15].MMIO.Sub":  true,
		"Host.Core[3]":            false,
		"Host.Core[x].MMIO":       false,
		"Host.Core[].MMIO":        false,
		"B.Host.Core[0].MMIO":     false,
		"Host.Core[0].MMIOX":      false,
		"NIC.PCIe.Down":           true,
		"NIC.PCIe.Down.Credits.P": true,
		"NIC.PCIe.Downstream":     false,
		"NIC.Engine[2]":           true,
		"NIC.Engine[2].Validate":  true,
		"NIC.Engine[2]x":          false,
	} {
		require.Equal(t, want, b.matches(name), name)
	}
}
