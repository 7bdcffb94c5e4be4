package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const validateFile = `name: one-read
run: {seed: 1, warmup_us: 1, duration_us: 10}
generators:
  - {name: reads, kind: dma_read, outstanding: 1, window_bytes: 8192}
validation:
  source: test
  plots:
    - {name: lat, title: latency, x_label: size, y_label: ns}
  rows:
    - id: read-64
      figure: 64 B read
      section: "1.1"
      citation: a table
      published: 546
      unit: ns
      nicsim: {metric: latency_ns_p50}
      tolerance_pct: 5
      plot: {name: lat, series: reads, x: 64}
`

// validateIn runs nicsim validate on the folder dir with the report and
// plots inside it.
func validateIn(t *testing.T, dir string, extra ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"validate", "--jobs", "1", "--dir", dir, "--doc", filepath.Join(dir, "docs", "VALIDATION.md"),
		"--img", filepath.Join(dir, "docs", "img")}, extra...)
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestValidateRegeneratesTheReportByteForByte: a second run writes the same
// report and plot, and with the verdicts kept it exits 0.
func TestValidateRegeneratesTheReportByteForByte(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "one-read.yaml"), []byte(validateFile), 0o644))
	code, out, errs := validateIn(t, dir, "--update-verdicts")
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, out, "changed: read-64: (no row) -> within")
	first, err := os.ReadFile(filepath.Join(dir, "docs", "VALIDATION.md"))
	require.NoError(t, err)
	plot, err := os.ReadFile(filepath.Join(dir, "docs", "img", "validation-one-read-lat.svg"))
	require.NoError(t, err)
	code, out, errs = validateIn(t, dir)
	require.Equal(t, exitOK, code, errs)
	require.NotContains(t, out, "changed")
	second, err := os.ReadFile(filepath.Join(dir, "docs", "VALIDATION.md"))
	require.NoError(t, err)
	plot2, err := os.ReadFile(filepath.Join(dir, "docs", "img", "validation-one-read-lat.svg"))
	require.NoError(t, err)
	require.Equal(t, string(first), string(second))
	require.Equal(t, plot, plot2)
	require.Contains(t, string(first), "| `read-64` | 64 B read | §1.1: a table | 546 ns |")
}

// TestValidateFailsWhenAKeptVerdictIsLost: a row kept as within that a
// run finds outside makes validate exit 1 after writing the report.
func TestValidateFailsWhenAKeptVerdictIsLost(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "one-read.yaml")
	require.NoError(t, os.WriteFile(path, []byte(validateFile), 0o644))
	code, _, errs := validateIn(t, dir, "--update-verdicts")
	require.Equal(t, exitOK, code, errs)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(validateFile, "published: 546", "published: 300", 1)), 0o644))
	code, out, errs := validateIn(t, dir)
	require.Equal(t, exitFailed, code)
	require.Contains(t, out, "REGRESSION: read-64: within -> outside")
	require.Contains(t, errs, "1 rows stopped holding")
	require.FileExists(t, filepath.Join(dir, "docs", "VALIDATION.md"))
}

func TestValidateFilesPrintsRowsAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "one-read.yaml")
	require.NoError(t, os.WriteFile(path, []byte(validateFile), 0o644))
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, dispatch([]string{"validate", "--jobs", "1", path}, &out, &errb), errb.String())
	require.Regexp(t, `read-64\s+546 ns\s+\S+ ns\s+\S+ %\s+±5 %\s+within`, out.String())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestValidateRejectsBadFilesAndFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(validateFile, "figure:", "figur:", 1)), 0o644))
	var out, errb bytes.Buffer
	require.Equal(t, exitFailed, dispatch([]string{"validate", path}, &out, &errb))
	require.Contains(t, errb.String(), "bad.yaml:11:7: validation.rows.0.figur: unknown key")
	errb.Reset()
	require.Equal(t, exitUsage, dispatch([]string{"validate", "--update-verdicts", path}, &out, &errb))
	require.Equal(t, exitUsage, dispatch([]string{"validate", "--jobs", "0"}, &out, &errb))
	errb.Reset()
	require.Equal(t, exitFailed, dispatch([]string{"validate", "--dir", t.TempDir()}, &out, &errb))
	require.Contains(t, errb.String(), "no validation files")
}
