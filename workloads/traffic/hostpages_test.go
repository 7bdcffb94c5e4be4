package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The run enforces the host memory pages the loader counted: a model write
// past them stops the point with an error naming the host, never a panic.
// An 8 KiB Write is two packets of the 4 KiB MTU, placed one by one: the
// error names the packet that found no page.
func TestRemoteWritePastHostMemoryStopsTheRunWithAnError(t *testing.T) {
	f := load(t, "run: {warmup_us: 1, duration_us: 20}\ngenerators: [{name: w, kind: rdma_write, size_bytes: 8192}]\n")
	w := f.Points[0]
	w.Adapter.NIC.HostMemoryPagesMax = 1 // as if the loader's check had been wrong
	_, err := RunPoint(w, RunOptions{})
	require.ErrorContains(t, err, "host b: host memory: writing 4096 bytes")
}
