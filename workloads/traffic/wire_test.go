package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// TestWireLatencyAddsTwiceToARemoteWrite: adapter.wire sets the link between
// the hosts; 1 us more one-way latency adds 2 us to a one-outstanding RDMA
// Write (request out, acknowledgement back), and a value out of range is an
// error naming the key and its range.
func TestWireLatencyAddsTwiceToARemoteWrite(t *testing.T) {
	run := "run: {warmup_us: 10, duration_us: 100}\n"
	gen := "generators: [{name: w, kind: rdma_write, size_bytes: 64}]\n"
	base := rdmaGen(t, run+gen)
	slow := rdmaGen(t, "adapter: {wire: {latency_ns: 1500}}\n"+run+gen)
	t.Logf("64 B RDMA Write p50: wire 500 ns one way %.1f ns, 1500 ns one way %.1f ns", base.LatencyNS.P50, slow.LatencyNS.P50)
	require.InDelta(t, 2000, slow.LatencyNS.P50-base.LatencyNS.P50, 20)

	_, err := workloads.Load(writeTemp(t, "name: x\nadapter: {wire: {gbit_per_s: 0}}\n"+run+gen), workloads.Options{})
	require.ErrorContains(t, err, "adapter.wire.gbit_per_s")
	require.ErrorContains(t, err, "1..10000")
}
