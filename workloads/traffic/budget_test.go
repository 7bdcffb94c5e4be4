package traffic

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/workloads"
)

// The memory a point holds while it runs stays within its estimate (the
// loader's memory budget), for kinds that fill every item of it: NIC
// objects, two hosts' memory, page lists, and an open-loop backlog kept
// full by arrivals far faster than the model serves them.
func TestRunHoldsLessThanItsMemoryEstimate(t *testing.T) {
	for name, src := range map[string]string{
		"fastreg": "run: {warmup_us: 1, duration_us: 50}\ngenerators: [{kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n",
		"rdma": "run: {warmup_us: 1, duration_us: 50}\ngenerators: [{kind: rdma_write, streams: 4, outstanding: 16, size_bytes: 4096, remote_pages: 4096}, " +
			"{kind: rdma_read, streams: 4, outstanding: 16, size_bytes: 65536, remote_pages: 64}]\n",
		"chain":   "run: {warmup_us: 1, duration_us: 50}\ngenerators: [{kind: fr_write_send_inv, streams: 8, outstanding: 8, pages: 64, size_bytes: 262144}]\n",
		"backlog": "run: {warmup_us: 0, duration_us: 2000}\ngenerators: [{kind: dma_read, streams: 8, size_bytes: 4096, arrival: {process: fixed, rate_mops: 1000, backlog_max: 100000}}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			w := load(t, src).Points[0]
			held, total := heldAfterRun(t, w), workloads.MemoryTotal(w.MemoryEstimate())
			t.Logf("held %s, estimate %s", workloads.Bytes(held), workloads.Bytes(total))
			require.LessOrEqual(t, held, total)
		})
	}
}

// heldAfterRun builds point w, sets it up, runs it and returns the heap it
// holds then (after a collection).
func heldAfterRun(t *testing.T, w *workloads.Workload) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Build(w)
	require.NoError(t, err)
	for i := range w.Generators {
		g, err := newGenerator(m, &w.Generators[i], w.Run.Seed, 0, 0, nil)
		require.NoError(t, err)
		m.gens = append(m.gens, g)
	}
	r := &pointRun{w: w, m: m}
	r.start()
	_, err = r.advance(RunOptions{})
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// nic.MetersMax bounds the meters a host registers (each holds a busy time
// per interval of the time series): with the most posting cores, engines
// and QPs the loader allows, a two-host model stays within it.
func TestMetersMaxCoversTheModelsMeters(t *testing.T) {
	for _, src := range []string{
		"run: {duration_us: 5}\ngenerators: [{kind: dma_read}]\n",
		"run: {duration_us: 5}\nadapter: {nic: {exec_engines: 64, host_cores: 1024}}\ngenerators: [{kind: rdma_write, streams: 1024}]\n",
	} {
		w := load(t, src).Points[0]
		m, err := Build(w)
		require.NoError(t, err)
		for i := range w.Generators {
			_, err := newGenerator(m, &w.Generators[i], w.Run.Seed, 0, 0, nil)
			require.NoError(t, err)
		}
		hosts := uint64(1)
		if w.NeedsHostB() {
			hosts = 2
		}
		n, most := uint64(len(m.Env.Meters.List())), hosts*nic.MetersMax(w.Adapter.NIC)+2
		t.Logf("%d meters, at most %d", n, most)
		require.LessOrEqual(t, n, most)
	}
}
