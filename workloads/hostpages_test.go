package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The remote kinds write real bytes into host memory; the loader refuses a
// file whose buffers hold more pages than adapter.nic.host_memory_pages_max
// instead of letting the run hit the limit.
func TestHostMemoryPagesMaxBoundsWhatTheRemoteKindsWrite(t *testing.T) {
	const run = "run: {duration_us: 5}\nadapter: {nic: {host_memory_pages_max: 1}}\n"
	require.Contains(t, loadErr(t, run+"generators: [{name: w, kind: rdma_write}]\n"),
		"w.yaml:3:14: generators.w: the remote generators can write 16 pages of host b's memory, more than adapter.nic.host_memory_pages_max = 1")
	require.Contains(t, loadErr(t, run+"generators: [{name: r, kind: rdma_read, size_bytes: 8192, remote_pages: 2}]\n"),
		"generators.r: the remote generators can write 2 pages of host a's memory, more than adapter.nic.host_memory_pages_max = 1")
	require.Contains(t, loadErr(t, run+"generators: [{name: c, kind: fr_write_send_inv, streams: 2, outstanding: 2}]\n"),
		"generators.c: the remote generators can write 4 pages of host b's memory, more than adapter.nic.host_memory_pages_max = 1")
	f := load(t, run+"generators: [{name: w, kind: rdma_write, remote_pages: 1}, {name: s, kind: send, size_bytes: 0}]\n")
	a, b := f.Points[0].HostPages()
	require.Equal(t, [2]uint64{0, 1}, [2]uint64{a, b})
	f = load(t, "run: {duration_us: 5}\ngenerators: [{kind: fr_write_send_inv, streams: 2, outstanding: 3, pages: 8, size_bytes: 5000}]\n")
	a, b = f.Points[0].HostPages()
	require.Equal(t, [2]uint64{0, 12}, [2]uint64{a, b}, "6 slots x the 2 pages a 5000 B Write touches")
}
