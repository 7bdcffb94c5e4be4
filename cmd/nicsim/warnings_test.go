package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run whose generator fails operations says so on stderr, naming the
// generator, the window's failures and the first failure status; its
// summary's rate counts the successes only.
func TestRunWarnsOfFailedCompletions(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "send.yaml", "adapter: {nic: {rnr_retry: 0}}\nrun: {seed: 1, warmup_us: 20, duration_us: 300}\n"+
		"generators: [{name: s, kind: send, streams: 16, outstanding: 16, receive_depth: 16, size_bytes: 64}]\n")
	code, stdout, stderr := nicsim(t, "run", f, "--no-plots", "--out", filepath.Join(dir, "out"))
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `nicsim run: warning: generator s: \d+ of the \d+ operations completed in the measured window failed `+
		`\(first failure STATUS_REMOTE_RESOURCES, at [0-9.]+ us\); throughput, goodput and own rate count only the \d+ that succeeded`, stderr)
	require.Regexp(t, `failures \(NIC\.PCIe\.Down \d+%\)`, stdout)
}

// Interrupt moderation in a workload where nothing arms a CQ is warned
// about by run and, per point, by sweep.
func TestRunAndSweepWarnOfInterruptModerationNothingUses(t *testing.T) {
	dir := t.TempDir()
	const gens = "run: {seed: 1, warmup_us: 5, duration_us: 20}\n" +
		"generators: [{name: b, kind: bind_invalidate, streams: 2, outstanding: 1, mr_pages: 16, window_bytes: 4096}]\n"
	f := writeFile(t, dir, "bind.yaml", gens)
	swept := writeFile(t, dir, "swept.yaml", gens+"sweep: {adapter.nic.moderation_cqes: [1, 64]}\n")
	const warned = "warning: adapter.nic.moderation_cqes = 64 and moderation_time_ns = 0 (preset generic: 1 and 0) change nothing"
	code, _, stderr := nicsim(t, "run", f, "--no-plots", "--out", filepath.Join(dir, "a"))
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, stderr, "moderation")
	code, _, stderr = nicsim(t, "run", f, "--no-plots", "--out", filepath.Join(dir, "b"), "--set", "adapter.nic.moderation_cqes=64")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "nicsim run: "+warned)
	code, _, stderr = nicsim(t, "sweep", swept, "--no-plots", "--out", filepath.Join(dir, "c"))
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "nicsim sweep: warning: adapter.nic.moderation_cqes=64: "+warned[len("warning: "):])
	require.NotContains(t, stderr, "moderation_cqes=1:")
}
