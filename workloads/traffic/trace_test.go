package traffic

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// traceFile runs the first point of a built-in workload with a trace and
// returns the trace's summary and the point's results.json bytes.
func traceFile(t *testing.T, file string, sets ...string) (*sim.TraceSummary, []byte) {
	t.Helper()
	f, err := workloads.Load("../"+file, workloads.Options{Sets: sets})
	require.NoError(t, err)
	f.Points = f.Points[:1]
	var buf bytes.Buffer
	ct := sim.NewChromeTrace(&buf)
	res, err := RunFile(f, RunOptions{Tracer: ct})
	require.NoError(t, err)
	require.NoError(t, ct.Close())
	sum, err := sim.CheckChromeTrace(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	b, err := results.EncodeJSON(res)
	require.NoError(t, err)
	return sum, b
}

func hasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestQuickstartTraceNestsAndHasEveryTrack: the README's workload traced
// gives slices that never partially overlap (what Perfetto needs to keep
// them all), one track group per generator and for the NIC's work
// requests with their arguments, and counter tracks of the PCIe link
// (TLPs per direction), the MPT and MTT caches (hits, misses), the
// pipeline stages (occupancy) and the DMA engine.
func TestQuickstartTraceNestsAndHasEveryTrack(t *testing.T) {
	sum, _ := traceFile(t, "quickstart.yaml")
	require.Greater(t, sum.Slices, 50000)
	require.Contains(t, sum.Groups, "Generator fr-inv")
	require.Contains(t, sum.Groups, "NIC work requests")
	require.Contains(t, sum.Tracks, "NIC work requests/QP[0]")
	require.True(t, hasPrefix(sum.Tracks, "NIC work requests/QP[0] #1"), "overlapping requests of a QP on lanes")
	require.Contains(t, sum.Tracks, "Generator fr-inv/stream 0 slot 0")
	for _, k := range []string{"qp", "index", "op", "pages", "length", "status"} {
		require.True(t, sum.ArgKeys["NIC work requests"][k], "work request argument %s", k)
	}
	for _, k := range []string{"generator", "stream", "slot", "bytes", "status"} {
		require.True(t, sum.ArgKeys["Generator fr-inv"][k], "operation argument %s", k)
	}
	for _, c := range []string{
		"NIC.PCIe/NIC.PCIe.Up.TLPs.MWr per_us", "NIC.PCIe/NIC.PCIe.Down.TLPs.CplD per_us", "NIC.PCIe/NIC.PCIe.Up.BusyPS per_ps",
		"NIC.TPT/NIC.TPT.MPTCache.Hits per_us", "NIC.TPT/NIC.TPT.MPTCache.Misses per_us", "NIC.TPT/NIC.TPT.MPTCache.Lookups per_us",
		"NIC.Stage/NIC.Stage.Validate.ResidencyPS per_ps", "NIC.Stage/NIC.Stage.MPTUpdate.ResidencyPS per_ps",
		"NIC.PCIe/NIC.PCIe.DMA.Writes per_us",
	} {
		require.Contains(t, sum.Counters, c)
	}
}

// TestTwoHostTraceHasTheWire: a traced two-host run has the wire's
// packets and bytes per direction and host b's work requests.
func TestTwoHostTraceHasTheWire(t *testing.T) {
	sum, _ := traceFile(t, "rdma-read-write.yaml", "run.duration_us=20")
	for _, c := range []string{"Wire/Wire.AtoB.Packets per_us", "Wire/Wire.BtoA.Bytes per_us", "B.NIC.PCIe/B.NIC.PCIe.Up.TLPs.MWr per_us", "B.NIC.TPT/B.NIC.TPT.MTTCache.Misses per_us"} {
		require.Contains(t, sum.Counters, c)
	}
	require.Contains(t, sum.Groups, "NIC work requests")
}

// TestTracingDoesNotChangeResults: the sampler runs between slices of the
// run loop and schedules no event, so a traced run's results are
// byte-identical to an untraced one's.
func TestTracingDoesNotChangeResults(t *testing.T) {
	_, traced := traceFile(t, "quickstart.yaml", "run.duration_us=100")
	f, err := workloads.Load("../quickstart.yaml", workloads.Options{Sets: []string{"run.duration_us=100"}})
	require.NoError(t, err)
	res, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	plain, err := results.EncodeJSON(res)
	require.NoError(t, err)
	require.Equal(t, string(plain), string(traced))
}
