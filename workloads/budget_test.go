package workloads

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A file that would make the simulator hold more than run.memory_max_bytes
// is refused at load, at the key that asks for the most, with the
// estimate: page lists of a chain, deep pipeline stages on many engines,
// open-loop backlogs.
func TestMemoryBudgetRefusesWhatAFileCannotHold(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"run: {duration_us: 5}\nadapter: {nic: {frmr_page_count: 65536}}\n" +
			"generators: [{name: c, kind: fr_write_send_inv, streams: 64, outstanding: 1024, pages: 65536}]\n",
			"w.yaml:3:14: generators.c: the run needs an estimated 32.5 GiB, more than run.memory_max_bytes = 4.0 GiB: objects 32.2 GiB (generators.c: "},
		{"run: {duration_us: 5}\nadapter: {nic: {exec_engines: 64, parse: {latency_cycles: 100000, items_per_cycle: 64}}}\ngenerators: [{kind: dma_read}]\n",
			"w.yaml:2:10: adapter: the run needs an estimated 16.1 GiB, more than run.memory_max_bytes = 4.0 GiB: adapter tables 16.0 GiB"},
		{"run: {duration_us: 5, memory_max_bytes: 16777216}\ngenerators: [{name: o, kind: dma_read, streams: 64, arrival: {rate_mops: 1}}]\n",
			"w.yaml:2:62: generators.o.arrival.backlog_max: the run needs an estimated 176.4 MiB, more than run.memory_max_bytes = 16.0 MiB: open-loop backlogs 128.0 MiB"},
	} {
		msg := loadErr(t, c.src)
		require.Contains(t, msg, c.want, c.src)
		require.Contains(t, msg, "raise run.memory_max_bytes")
	}
	require.Contains(t, loadErr(t, "run: {duration_us: 5, memory_max_bytes: 1000}\ngenerators: [{kind: dma_read}]\n"), "run.memory_max_bytes: 1000 is out of range 2^24..2^40")
}

// The built-in workloads need a small part of the default budget, so the
// budget refuses only files that ask for a lot.
func TestBuiltinWorkloadsFitTheBudgetWithRoomToSpare(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	for _, p := range files {
		if strings.HasPrefix(filepath.Base(p), "scenario") {
			continue
		}
		f, err := Load(p, Options{})
		require.NoError(t, err, p)
		est := f.MemoryEstimate()
		t.Logf("%s: %s", p, Bytes(est))
		if filepath.Base(p) == "scale.yaml" {
			// The scale run fits the default budget (docs/scaling.md).
			require.Less(t, est, uint64(DefaultMemoryMaxBytes), p)
			continue
		}
		require.Less(t, est, uint64(100<<20), p)
	}
}

// A sweep runs at most as many points at once as fit the budget.
func TestSweepJobsWithinTheBudget(t *testing.T) {
	src := "run: {duration_us: 5, memory_max_bytes: 67108864}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: [1, 2, 3, 4]}\n"
	f := load(t, src)
	per := MemoryTotal(f.Points[0].MemoryEstimate())
	require.Equal(t, int((64<<20-f.resultsBytes())/per), f.JobsWithin())
	require.Greater(t, load(t, strings.Replace(src, "67108864", "4294967296", 1)).JobsWithin(), 50)
}

// The run keeps every point's results: a sweep of many points is held to
// the budget as a whole, at the sweep.
func TestMemoryBudgetCountsEverySweepPoint(t *testing.T) {
	vals := make([]string, 64)
	for i := range vals {
		vals[i] = strconv.Itoa(i + 1)
	}
	src := "run: {duration_us: 5, memory_max_bytes: 67108864}\ngenerators: [{kind: dma_read}]\nsweep:\n  run.seed: [" + strings.Join(vals, ", ") + "]\n"
	require.Contains(t, loadErr(t, src), "w.yaml:4:3: sweep: the run needs an estimated 137.0 MiB, more than run.memory_max_bytes = 64.0 MiB: 64 points' results (88.8 MiB) and the largest point")
	load(t, strings.Replace(src, "67108864", "268435456", 1))
}
