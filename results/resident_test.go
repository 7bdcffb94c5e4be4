package results

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPeakResidentBytesCoversMemoryTouched: after the process has touched
// 64 MiB, its peak resident set is at least that (on systems with
// getrusage; elsewhere it is 0 and meta.json leaves it out).
func TestPeakResidentBytesCoversMemoryTouched(t *testing.T) {
	if PeakResidentBytes() == 0 {
		t.Skipf("%s: no peak resident figure", runtime.GOOS)
	}
	const n = 64 << 20
	buf := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		buf[i] = 1
	}
	require.GreaterOrEqual(t, PeakResidentBytes(), uint64(n))
	runtime.KeepAlive(buf)
}
