package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// A flag given an empty value is a bad flag (exit 2), never a silent
// default: an empty --out does not quietly write results/runs.
func TestEmptyFlagValueIsABadFlag(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	f := writeFile(t, dir, "small.yaml", smallRun)
	for _, args := range [][]string{
		{"run", "--seed", "", "--out", filepath.Join(dir, "o"), f},
		{"run", "--out", "", f},
		{"run", "--out=", f},
		{"check", "--seed", "", f},
		{"sweep", "--out", "", f},
		{"merge", "--out", "", dir},
	} {
		code, _, stderr := nicsim(t, args...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Contains(t, stderr, "is given an empty value", "%q", args)
	}
	require.NoDirExists(t, filepath.Join(dir, "results"))
	require.NoDirExists(t, filepath.Join(dir, "o"))
}

// regress's modes --report, --update and --add are exclusive: any two are
// refused (exit 2) before anything runs.
func TestRegressModesAreExclusive(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	for _, args := range [][]string{
		{"--update", "--add", f}, {"--report", "--add", f}, {"--report", "--update"},
	} {
		code, _, stderr := nicsim(t, append([]string{"regress", "--dir", dir}, args...)...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Contains(t, stderr, "give only one of --report", "%q", args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no baseline was written")
}

// A command that takes no arguments refuses them (exit 2) instead of
// ignoring them.
func TestExtraArgumentsAreRefused(t *testing.T) {
	for _, args := range [][]string{{"version", "extra"}, {"--version", "extra"}, {"bench-engine", "extra"}, {"pcie", "extra"}} {
		code, stdout, stderr := nicsim(t, args...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Contains(t, stderr, `unexpected argument "extra"`, "%q", args)
		require.Empty(t, stdout, "%q", args)
	}
}

// A --set that names an unknown key or holds a bad value, too many --set,
// and --set or --seed with a scenario are bad flags (exit 2); an invalid
// file stays exit 1.
func TestBadSetIsAFlagError(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	bad := writeFile(t, dir, "bad.yaml", "run: {duration_us: 5}\ngenerators: [{kind: dma_read, streams: 1e12}]\n")
	sc := writeFile(t, dir, "s.yaml", "scenario: x\nhosts: [{name: a}]\nsteps: [{run: {until: idle}}]\n")
	many := []string{"check"}
	for i := range 257 {
		many = append(many, "--set", fmt.Sprintf("run.seed=%d", i))
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"check", "--set", "nosuch.key=1", f}, exitUsage, "small.yaml: --set nosuch.key=1: nosuch: unknown key"},
		{[]string{"check", "--set", "sweep={nosuch.key: [1, 2]}", f}, exitUsage, "sweep.nosuch.key: unknown key"},
		{[]string{"check", "--set", "run.duration_us=1e400", f}, exitUsage, "run.duration_us: 1e400 is out of range"},
		{append(many, f), exitUsage, "257 --set flags, at most 256"},
		{[]string{"run", "--set", "nosuch=1", "--out", filepath.Join(dir, "o"), f}, exitUsage, "invalid --set or --seed flag; nothing was run"},
		{[]string{"sweep", "--set", "nosuch=1", "--out", filepath.Join(dir, "o"), f}, exitUsage, "invalid --set or --seed flag; nothing was run"},
		{[]string{"check", "--seed", "1", sc}, exitUsage, "is a scenario: --set and --seed do not apply"},
		{[]string{"check", bad}, exitFailed, "1e12 is out of range"},
		{[]string{"check", "--set", "run.seed=2", bad}, exitFailed, "1e12 is out of range"},
	} {
		code, _, stderr := nicsim(t, c.args...)
		require.Equal(t, c.code, code, "%q", c.args)
		require.Contains(t, stderr, c.msg, "%q", c.args)
	}
	require.NoDirExists(t, filepath.Join(dir, "o"))
}

// pcie --sizes refuses a size given twice (it would print the same row
// again) and more sizes than its bound, which -h states.
func TestPCIeSizesRefusesDuplicatesAndStatesItsBound(t *testing.T) {
	code, stdout, stderr := nicsim(t, "pcie", "--ideal", "--sizes", "64,64,64")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--sizes: 64 is given twice")
	require.Empty(t, stdout)
	sizes := make([]string, pcieSizesMax+1)
	for i := range sizes {
		sizes[i] = fmt.Sprint(i + 1)
	}
	code, _, stderr = nicsim(t, "pcie", "--sizes", strings.Join(sizes, ","))
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--sizes: 65 sizes, at most 64")
	_, _, stderr = nicsim(t, "pcie", "-h")
	require.Contains(t, stderr, "each once, at most 64")
}

// compare prints a change from a base of 0 and a huge change readably: no
// -inf%, no percentage of three hundred digits.
func TestCompareChangeFromZeroOrHugeIsReadable(t *testing.T) {
	c := &results.Comparison{Changes: []results.Change{
		{Point: "p", Generator: "g", Metric: "latency_ns_p99", Base: 0, New: 5, ChangePct: math.Inf(1), Verdict: results.Regression},
		{Point: "p", Generator: "g", Metric: "throughput_mops", Base: 0, New: -5, ChangePct: math.Inf(-1), Verdict: results.Regression},
		{Point: "p", Generator: "g", Metric: "latency_ns_p50", Base: 1000, New: 1e308, ChangePct: (1e308 - 1000) / 1000 * 100, Verdict: results.Regression},
		{Point: "p", Generator: "g", Metric: "latency_ns_max", Base: 100, New: 150, ChangePct: 50, Verdict: results.Regression},
	}}
	var b bytes.Buffer
	printComparison(&b, c, true)
	out := b.String()
	require.NotContains(t, out, "inf%")
	require.Equal(t, 2, strings.Count(out, "n/a (base 0)"), out)
	require.Contains(t, out, "+1e+307%")
	require.Contains(t, out, "+50.00%")
	for _, line := range strings.Split(out, "\n") {
		require.Less(t, len(line), 160, line)
	}
}
