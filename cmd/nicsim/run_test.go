package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads/scenario"
)

const builtinDir = "../../workloads"

func nicsim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = dispatch(args, &o, &e)
	return code, o.String(), e.String()
}

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

const smallRun = "run: {warmup_us: 1, duration_us: 20}\ngenerators:\n  - {name: rd, kind: dma_read, outstanding: 4, size_bytes: {uniform: {min: 64, max: 512}}}\n" +
	"  - {name: wr, kind: dma_write, arrival: {rate_mops: 2}, size_bytes: 128}\n"

func TestRunPrintsSummaryAndWritesOutputFolder(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := nicsim(t, "run", f, "--out", out, "--seed", "5")
	require.Equal(t, exitOK, code, stderr)
	for _, col := range []string{"generator", "ops", "Mops/s", "p50 ns", "p99 ns", "p999 ns", "max ns", "PCIe up", "PCIe down", "MPT hit", "MTT hit"} {
		require.Contains(t, stdout, col)
	}
	require.Contains(t, stdout, "seed 5")
	require.Contains(t, stdout, "results: "+out)
	for _, name := range []string{"results.json", "results.csv", "config.json", "meta.json"} {
		require.FileExists(t, filepath.Join(out, name))
	}
	var m results.Meta
	b, _ := os.ReadFile(filepath.Join(out, "meta.json"))
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, version, m.Version)
	require.Equal(t, uint64(5), m.Seed)
	require.False(t, m.Partial)
	var cfg map[string]any
	b, _ = os.ReadFile(filepath.Join(out, "config.json"))
	require.NoError(t, json.Unmarshal(b, &cfg))
	pt := cfg["points"].([]any)[0].(map[string]any)
	require.Equal(t, float64(8), pt["adapter"].(map[string]any)["pcie"].(map[string]any)["lanes"], "the resolved preset values")
	require.Equal(t, float64(4), pt["generators"].([]any)[0].(map[string]any)["outstanding"])
	csv, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[1], "0,generator,rd,,dma_read,"), lines[1])
	res, _ := os.ReadFile(filepath.Join(out, "results.json"))
	require.NotContains(t, string(res), "wall")
}

// Each point of config.json is itself a workload file (JSON is YAML) that
// reproduces the run.
func TestConfigJSONPointReloadsAsAWorkloadAndReproducesTheRun(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	a := filepath.Join(dir, "a")
	code, _, stderr := nicsim(t, "run", "--quiet", "--out", a, "--set", "adapter.pcie.mps_bytes=512", f)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(filepath.Join(a, "config.json"))
	require.NoError(t, err)
	var cfg struct {
		Points []json.RawMessage `json:"points"`
	}
	require.NoError(t, json.Unmarshal(b, &cfg))
	g := writeFile(t, dir, "small.json", string(cfg.Points[0]))
	bdir := filepath.Join(dir, "b")
	code, _, stderr = nicsim(t, "run", "--quiet", "--out", bdir, g)
	require.Equal(t, exitOK, code, stderr)
	ra, _ := os.ReadFile(filepath.Join(a, "results.json"))
	rb, _ := os.ReadFile(filepath.Join(bdir, "results.json"))
	require.Equal(t, string(ra), string(rb))
}

func TestRunDefaultFolderIsResultsRunsStemSeedHash(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	t.Chdir(dir)
	code, _, stderr := nicsim(t, "run", "--quiet", f)
	require.Equal(t, exitOK, code, stderr)
	found, err := filepath.Glob(filepath.Join(dir, "results", "runs", "small-1-????????", "results.json"))
	require.NoError(t, err)
	require.Len(t, found, 1)
}

func TestSameFileAndSeedGiveByteIdenticalResultsJSON(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	var got [][]byte
	for i := range 2 {
		out := filepath.Join(dir, "run"+string(rune('a'+i)))
		code, _, stderr := nicsim(t, "run", "--quiet", "--out", out, f)
		require.Equal(t, exitOK, code, stderr)
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		require.NoError(t, err)
		got = append(got, b)
	}
	require.Equal(t, string(got[0]), string(got[1]))
}

func TestInterruptWritesPartialResults(t *testing.T) {
	saved := interruptSource
	defer func() { interruptSource = saved }()
	polls := 0
	interruptSource = func() (func() bool, func()) {
		return func() bool { polls++; return polls > 2 }, func() {}
	}
	dir := t.TempDir()
	f := writeFile(t, dir, "long.yaml", "run: {duration_us: 100000}\ngenerators: [{kind: dma_read}]\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := nicsim(t, "run", f, "--out", out)
	require.Equal(t, exitInterrupted, code)
	require.Contains(t, stderr, "interrupted by Ctrl-C; partial results written")
	require.Contains(t, stdout, "PARTIAL")
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	var r struct {
		Partial bool `json:"partial"`
		Points  []struct {
			StopReason string `json:"stop_reason"`
		} `json:"points"`
	}
	require.NoError(t, json.Unmarshal(b, &r))
	require.True(t, r.Partial)
	require.Equal(t, "interrupted", r.Points[0].StopReason)
	m, _ := os.ReadFile(filepath.Join(out, "meta.json"))
	require.Contains(t, string(m), `"partial": true`)
}

func TestInvalidFileRunsNothing(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", smallRun)
	bad := writeFile(t, dir, "bad.yaml", "run: {duration_us: 5}\ngenerators: [{kind: dma_read, streams: 1e12}]\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := nicsim(t, "run", "--out", out, good, bad)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "bad.yaml:2:40: generators.0.streams: 1e12 is out of range 1..65536")
	require.Contains(t, stderr, "nothing was run")
	require.NoDirExists(t, out)
}

func TestSetOverrideOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	code, _, stderr := nicsim(t, "run", f, "--out", filepath.Join(dir, "o"), "--set", "adapter.pcie.lanes=32")
	require.Equal(t, exitUsage, code, "a bad --set value is a bad flag")
	require.Contains(t, stderr, "small.yaml: --set adapter.pcie.lanes=32: adapter.pcie.lanes: 32 is not one of 1, 2, 4, 8, 16")
	code, stdout, stderr := nicsim(t, "run", f, "--out", filepath.Join(dir, "o"), "--set", "adapter.preset=connectx-6-dx", "--set", "generators.rd.outstanding=1")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "adapter connectx-6-dx (PCIe gen4 x16)")
	cfg, _ := os.ReadFile(filepath.Join(dir, "o", "config.json"))
	require.Contains(t, string(cfg), `"generators.rd.outstanding=1"`)
}

func TestCheckReportsEveryFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", smallRun)
	bad1 := writeFile(t, dir, "bad1.yaml", "run: {duration_us: 5}\ngenerators: [{kind: dma_read, outstandng: 2}]\n")
	bad2 := writeFile(t, dir, "bad2.yaml", "adapter: {pcie: {lanes: 3}}\nrun: {duration_us: 5}\ngenerators: [{kind: nope}]\n")
	code, stdout, stderr := nicsim(t, "check", bad1, good, bad2)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stdout, "good.yaml: ok")
	require.Contains(t, stderr, "bad1.yaml:2:31: generators.0.outstandng: unknown key")
	require.Contains(t, stderr, "bad2.yaml:1:25: adapter.pcie.lanes: 3 is not one of 1, 2, 4, 8, 16")
	require.Contains(t, stderr, `bad2.yaml:3:21: generators.0.kind: unknown operation kind "nope"`)
	require.Contains(t, stderr, "2 of 3 files invalid")
	code, _, _ = nicsim(t, "check")
	require.Equal(t, exitUsage, code)
}

func TestEveryBuiltinWorkloadPassesCheckAndRuns(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(builtinDir, "*.yaml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 2)
	code, stdout, stderr := nicsim(t, append([]string{"check"}, files...)...)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, len(files), strings.Count(stdout, ": ok:"))
	for _, f := range files {
		if scenario.IsFile(f) {
			code, stdout, stderr := nicsim(t, "run", f)
			require.Equal(t, exitOK, code, "%s: %s", f, stderr)
			require.Contains(t, stdout, `"step":1,`)
			continue
		}
		short := []string{"--set", "run.warmup_us=2", "--set", "run.duration_us=5", "--set", "run.ops=0"}
		if strings.Contains(f, "reach-cliff") {
			short = []string{"--set", "run.ops=200"}
		}
		if strings.HasSuffix(f, "scale.yaml") {
			short = append(short, "--set", "generators.fr-inv.streams=256") // make scale runs it whole
		}
		args := append([]string{"run", "--out", filepath.Join(t.TempDir(), "o"), f}, short...)
		code, stdout, stderr := nicsim(t, args...)
		require.Equal(t, exitOK, code, "%s: %s", f, stderr)
		require.Contains(t, stdout, "p99 ns")
	}
}

func TestTraceWritesPerfettoJSONWithOperationSpans(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	tr := filepath.Join(dir, "trace.json")
	code, stdout, stderr := nicsim(t, "run", "--out", filepath.Join(dir, "o"), "--trace", tr, f)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "trace: "+tr)
	b, err := os.ReadFile(tr)
	require.NoError(t, err)
	sum, err := sim.CheckChromeTrace(bytes.NewReader(b))
	require.NoError(t, err, "no slice partially overlaps another")
	require.Greater(t, sum.Slices, 50)
	require.Contains(t, sum.Tracks, "Generator rd/stream 0 slot 3")
	require.Contains(t, sum.Tracks, "Generator wr/stream 0 slot 0")
}

func TestProfileFlagWritesAProfile(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	out := filepath.Join(dir, "o")
	code, _, stderr := nicsim(t, "run", "--quiet", "--out", out, "--profile", "cpu", f)
	require.Equal(t, exitOK, code, stderr)
	require.FileExists(t, filepath.Join(out, "cpu.pprof"))
	code, _, stderr = nicsim(t, "run", "--profile", "gpu", f)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, `--profile "gpu" must be cpu or mem`)
}

func TestPresetsListsEveryValueWithItsSource(t *testing.T) {
	code, stdout, stderr := nicsim(t, "presets")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "generic: ")
	require.Contains(t, stdout, "connectx-6-dx: ")
	require.Regexp(t, `adapter\.pcie\.tags_max\s+32\s+assumed: 5-bit tags`, stdout)
	require.Regexp(t, `adapter\.pcie\.lanes\s+16\s+docs/sources\.md 7`, stdout)
	require.Regexp(t, `adapter\.mtt\.mtt_cache\.entries_max\s+4096\s+assumed: Coyote`, stdout)
	_, again, _ := nicsim(t, "presets")
	require.Equal(t, stdout, again)
	code, _, stderr = nicsim(t, "presets", "nope")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, `unknown preset "nope"`)
}

func TestHelpListsKindsAndPresets(t *testing.T) {
	code, _, stderr := nicsim(t, "run", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, stderr, "Operation kinds: bind_invalidate, dma_read, dma_write, fast_register_invalidate, fr_write_send_inv, rdma_read, rdma_write, register_mr, send, translate")
	require.Contains(t, stderr, "Adapter presets: generic, connect-ib, connectx-5, connectx-6-dx, nfp6000-e5")
}

// The quickstart (the NIC, its setup and the FastRegister+Invalidate
// chains) gives byte-identical results.json for the same file and seed,
// with the NIC's statistics and the chain's parts in it.
func TestQuickstartResultsJSONIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(builtinDir, "quickstart.yaml")
	var got []string
	for i := range 2 {
		out := filepath.Join(dir, "run"+string(rune('a'+i)))
		code, _, stderr := nicsim(t, "run", "--quiet", "--out", out, f, "--set", "run.duration_us=200")
		require.Equal(t, exitOK, code, stderr)
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		require.NoError(t, err)
		got = append(got, string(b))
	}
	require.Equal(t, got[0], got[1])
	for _, want := range []string{`"NIC.FastRegister.Completed"`, `"NIC.TPT.`, `"name": "fr-inv/invalidate"`, `"setup_ps"`} {
		require.Contains(t, got[0], want)
	}
}

// TestDefaultFolderHoldsTheConfigHash: two studies of one file with
// different --set overrides go to two default folders, each named
// <stem>-<seed>-<hash> with the hash of meta.json's config_hash.
func TestDefaultFolderHoldsTheConfigHash(t *testing.T) {
	wl, err := filepath.Abs("../../workloads/pcie-dma.yaml")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	for _, set := range []string{"adapter.pcie.lanes=8", "adapter.pcie.lanes=16"} {
		var so, se bytes.Buffer
		require.Equal(t, 0, dispatch([]string{"run", wl, "--quiet", "--set", set, "--set", "run.duration_us=5"}, &so, &se), se.String())
	}
	dirs, err := filepath.Glob(filepath.Join("results", "runs", "pcie-dma-1-*"))
	require.NoError(t, err)
	require.Len(t, dirs, 2, "one folder per configuration")
	for _, d := range dirs {
		var m results.Meta
		b, err := os.ReadFile(filepath.Join(d, "meta.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &m))
		require.Equal(t, "pcie-dma-1-"+m.ConfigHash[:results.ConfigHashLen], filepath.Base(d))
		require.NotEmpty(t, m.Module)
		require.NotEmpty(t, m.Source)
	}
}

// TestRunPrintsTheSimulatorsOwnSpeed: the summary ends with the run's wall
// time, events and wall nanoseconds per work request, and meta.json has
// the peak resident memory the line quotes (on systems that report it).
func TestRunPrintsTheSimulatorsOwnSpeed(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "small.yaml", smallRun)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := nicsim(t, "run", f, "--out", out, "--no-plots")
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `simulator: [0-9.]+ s wall, [1-9][0-9]* events, [0-9]+ ns wall per work request`, stdout)
	var m results.Meta
	b, err := os.ReadFile(filepath.Join(out, "meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	if results.PeakResidentBytes() > 0 {
		require.Positive(t, m.PeakResidentBytes)
		require.Contains(t, stdout, "MiB peak resident")
	}
}
