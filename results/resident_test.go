package results

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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
	buf := touched(n)
	require.GreaterOrEqual(t, PeakResidentBytes(), uint64(n))
	runtime.KeepAlive(buf)
}

// TestPeakResidentBytesLeavesOutTheParentsMemory: a process started by
// one that has touched 256 MiB (as the go command starts nicsim under go
// run) reports its own peak, not its parent's: Linux keeps the parent's in
// the child's ru_maxrss.
func TestPeakResidentBytesLeavesOutTheParentsMemory(t *testing.T) {
	if PeakResidentBytes() == 0 {
		t.Skipf("%s: no peak resident figure", runtime.GOOS)
	}
	const n = 256 << 20
	buf := touched(n)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakResidentBytesOfAChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "NICSIM_PEAK_CHILD=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	runtime.KeepAlive(buf)
	_, line, ok := strings.Cut(string(out), "peak ")
	require.True(t, ok, "the child printed no peak: %s", out)
	peak, err := strconv.ParseUint(strings.Fields(line)[0], 10, 64)
	require.NoError(t, err)
	require.Positive(t, peak)
	require.Less(t, peak, uint64(n/2), "the child's peak holds the parent's 256 MiB")
}

// TestPeakResidentBytesOfAChild prints the peak of the process the test
// above starts; otherwise it does nothing.
func TestPeakResidentBytesOfAChild(t *testing.T) {
	if os.Getenv("NICSIM_PEAK_CHILD") != "1" {
		t.Skip("run by TestPeakResidentBytesLeavesOutTheParentsMemory")
	}
	os.Stdout.WriteString("peak " + strconv.FormatUint(PeakResidentBytes(), 10) + "\n")
}

// touched returns n bytes with every page written, so resident.
func touched(n int) []byte {
	buf := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		buf[i] = 1
	}
	return buf
}
