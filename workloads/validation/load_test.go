package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tiny is a small valid validation file: one DMA read size sweep, cheap to
// run.
const tiny = `name: tiny
run: {seed: 1, warmup_us: 1, duration_us: 20}
generators:
  - name: reads
    kind: dma_read
    outstanding: 1
    window_bytes: 8192
sweep:
  generators.reads.size_bytes: [64, 2048]
validation:
  source: test-source
  source_title: A test source
  plots:
    - {name: lat, title: latency, x_label: size, y_label: ns, log_x: true}
  rows:
    - id: lat-64
      figure: read latency, 64 B
      section: "1.1"
      citation: a table
      published: 546
      unit: ns
      nicsim: {metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}
      tolerance_pct: 5
      plot: {name: lat, series: reads, x: 64}
    - id: lat-ratio
      figure: 2 KiB over 64 B latency
      section: "1.1"
      citation: a table
      published: 1000
      unit: ratio
      nicsim:
        ratio:
          - {metric: latency_ns_p50, at: {generators.reads.size_bytes: 2048}}
          - {metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}
      accept: {min: 1.5, max: 3}
      plot: {name: lat, series: reads, x: 2048}
    - id: lat-gone
      figure: something nicsim has no model of
      section: "2"
      citation: a paper
      published: 7
      unit: ns
      not_modelled: no such thing
      tolerance_pct: 10
`

func TestLoadTinyValidationFile(t *testing.T) {
	f, err := LoadBytes("v.yaml", []byte(tiny))
	require.NoError(t, err)
	require.Equal(t, "test-source", f.Source)
	require.Len(t, f.Rows, 3)
	require.Len(t, f.Workload.Points, 2)
	require.Equal(t, "546", f.Rows[0].Published.Text)
	require.Equal(t, 0, f.Rows[0].NICSim.point)
	require.Equal(t, "reads", f.Rows[0].NICSim.Generator, "the only generator is the default")
}

// TestValidationFileErrorsNameFileLineAndKey: every problem of a
// validation file is reported with file:line:col and its key path, and
// nothing is returned.
func TestValidationFileErrorsNameFileLineAndKey(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"no section", "validation:\n", "other:\n", "no `validation:` key"},
		{"unknown key", "      unit: ns\n      nicsim: {metric: latency_ns_p50, at", "      unit: ns\n      colour: red\n      nicsim: {metric: latency_ns_p50, at", "v.yaml:22:7: validation.rows.0.colour: unknown key"},
		{"unknown metric", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}", "{metric: latency_p50, at: {generators.reads.size_bytes: 64}}", "unknown metric \"latency_p50\""},
		{"at not an axis", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}", "{metric: latency_ns_p50, at: {run.seed: 1}}", "run.seed: not an axis"},
		{"at not a value", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 65}}", "\"65\" is not one of the axis' values 64, 2048"},
		{"at missing", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}", "{metric: latency_ns_p50}", "picks more than one of the 2 sweep points"},
		{"no generator", "{metric: latency_ns_p50, at: {generators.reads.size_bytes: 64}}", "{metric: latency_ns_p50, generator: writes, at: {generators.reads.size_bytes: 64}}", "no generator \"writes\""},
		{"ratio of one", "        ratio:\n          - {metric: latency_ns_p50, at: {generators.reads.size_bytes: 2048}}\n", "        ratio:\n", "needs two measures"},
		{"two tolerances", "      tolerance_pct: 5\n", "      tolerance_pct: 5\n      accept: {min: 1}\n", "give exactly one of tolerance_pct and accept"},
		{"both measure and reason", "      not_modelled: no such thing\n", "      not_modelled: no such thing\n      nicsim: {metric: failed, at: {generators.reads.size_bytes: 64}}\n", "give exactly one of nicsim"},
		{"duplicate id", "    - id: lat-ratio\n", "    - id: lat-64\n", "validation.rows.1.id: \"lat-64\" is used twice"},
		{"bad section", "      section: \"2\"\n", "      section: two\n", "\"two\" is not a docs/sources.md section"},
		{"unknown plot", "plot: {name: lat, series: reads, x: 64}", "plot: {name: bandwidth, series: reads, x: 64}", "needs name (one of the file's plots)"},
		{"string for number", "      published: 546\n", "      published: lots\n", "validation.rows.0.published: expected a number, found string \"lots\""},
		{"workload error", "    outstanding: 1\n", "    outstanding: 0\n", "generators.reads.outstanding: 0 is out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(tiny, c.from, c.to, 1)
			require.NotEqual(t, tiny, src, "the case must change the file")
			f, err := LoadBytes("v.yaml", []byte(src))
			require.Nil(t, f)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.Contains(t, err.Error(), "v.yaml")
		})
	}
}

func TestSourcesSectionTextStopsAtTheNextSection(t *testing.T) {
	doc := "# t\n\n## 1. One\n\nintro 5\n\n### 1.1 Sub\n\nsix 6\n\n### 1.2 Other\n\nseven 7\n\n## 2. Two\n\neight 8\n"
	s, ok := sourcesSectionText(doc, "1.1")
	require.True(t, ok)
	require.Contains(t, s, "six 6")
	require.NotContains(t, s, "seven")
	s, ok = sourcesSectionText(doc, "1")
	require.True(t, ok)
	require.Contains(t, s, "seven 7", "a top-level section keeps its subsections")
	require.NotContains(t, s, "eight")
	_, ok = sourcesSectionText(doc, "3")
	require.False(t, ok)
}

// TestSlugIsOneToSixtyFourLowerCaseCharacters: a name or id is 1 to 64
// lower-case letters, digits and '-', not starting with '-'.
func TestSlugIsOneToSixtyFourLowerCaseCharacters(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "lat-64": true, "0": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "A": false, "a_b": false, "a b": false, strings.Repeat("a", 65): false,
	} {
		require.Equal(t, want, isSlug(s), "%q", s)
	}
}
