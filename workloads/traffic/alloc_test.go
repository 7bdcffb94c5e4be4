package traffic

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSteadyStateAllocatesNothingPerRequest runs each whole-simulator
// load for two lengths: the longer run's extra work requests (posting,
// the NIC's queues and firmware commands, the wire, polling and draining
// CQEs, the generators' bookkeeping) may cost no heap allocation of their
// own. A CQE handed to the consumer on the heap, a callback bound at each
// call or a queue kept as a slice cut from the front (its array
// reallocated as it drifts) would each be one or more per request.
// Amortised growth (histogram and sketch blocks) is left, under 0.05 per
// request.
func TestSteadyStateAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each whole-simulator load twice")
	}
	for _, c := range []struct {
		name        string
		load        wholeLoad
		short, long string
	}{
		{"quickstart", quickstartLoad, "run.duration_us=100", "run.duration_us=500"},
		{"bind", bindLoad, "run.duration_us=100", "run.duration_us=500"},
		{"rdma", rdmaLoad, "run.duration_us=200", "run.duration_us=1000"},
		{"register", registerLoad, "run.ops=400", "run.ops=2000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			short, shortReqs := runMallocs(t, c.load, c.short)
			long, longReqs := runMallocs(t, c.load, c.long)
			require.Greater(t, longReqs, shortReqs+1000, "the longer run completes more requests")
			extra := int64(long) - int64(short) // the runtime's own may make it negative
			perReq := float64(extra) / float64(longReqs-shortReqs)
			t.Logf("%d extra requests, %d extra allocations: %.4f per request", longReqs-shortReqs, extra, perReq)
			require.Less(t, perReq, 0.05, "heap allocations per extra request")
		})
	}
}

// runMallocs runs load's point with the override set and returns the
// heap allocations of the run and the requests it completed.
func runMallocs(t *testing.T, load wholeLoad, set string) (mallocs, reqs uint64) {
	t.Helper()
	w := load.point(t, set)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	p, err := RunPoint(w, RunOptions{})
	runtime.ReadMemStats(&ms1)
	require.NoError(t, err)
	return ms1.Mallocs - ms0.Mallocs, p.WorkRequests()
}
