package traffic

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// TestCompletionPathAllocatesNothingPerRequest runs the quickstart load for
// two lengths of time: the longer run's extra work requests (posting,
// polling and draining their CQEs, the generator's bookkeeping) may cost
// no heap allocation of their own: a CQE handed to the consumer on the
// heap would be one per request. Amortised growth (slices, histogram and
// sketch blocks, the NIC's queues) is left, about 0.1 per request.
func TestCompletionPathAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart load twice")
	}
	short, shortReqs := quickstartMallocs(t, "run.duration_us=100")
	long, longReqs := quickstartMallocs(t, "run.duration_us=500")
	require.Greater(t, longReqs, shortReqs+10_000, "the longer run completes more requests")
	perReq := float64(long-short) / float64(longReqs-shortReqs)
	t.Logf("%d extra requests, %d extra allocations: %.4f per request", longReqs-shortReqs, long-short, perReq)
	require.Less(t, perReq, 0.5, "heap allocations per extra request")
}

// quickstartMallocs runs workloads/quickstart.yaml with sets and returns
// the heap allocations of the run and the requests it completed.
func quickstartMallocs(t *testing.T, sets ...string) (mallocs, reqs uint64) {
	t.Helper()
	f, err := workloads.Load("../quickstart.yaml", workloads.Options{Sets: sets})
	require.NoError(t, err)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	p, err := RunPoint(f.Points[0], RunOptions{})
	runtime.ReadMemStats(&ms1)
	require.NoError(t, err)
	return ms1.Mallocs - ms0.Mallocs, p.WorkRequests()
}
