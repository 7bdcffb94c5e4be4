package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A number too large for 64 bits (which the YAML parser reads as a string)
// is reported as out of range, with where it is, not as "expected a
// number, found string".
func TestHugeNumberIsOutOfRangeNotAString(t *testing.T) {
	require.Equal(t, "w.yaml:1:20: run.duration_us: 1e400 is out of range 0..1e7",
		loadErr(t, "run: {duration_us: 1e400}\ngenerators: [{kind: dma_read}]\n"))
	require.Equal(t, "w.yaml:1:20: run.duration_us: -1e400 is out of range 0..1e7",
		loadErr(t, "run: {duration_us: -1e400}\ngenerators: [{kind: dma_read}]\n"))
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators:\n  - {kind: dma_read, outstanding: 0x1_0000_0000_0000_0000}\n"),
		"w.yaml:3:35: generators.0.outstanding: 0x1_0000_0000_0000_0000 is out of range 1..4096")
	require.Contains(t, loadErr(t, "run: {duration_us: '1e400'}\ngenerators: [{kind: dma_read}]\n"),
		`run.duration_us: expected a number, found string "1e400"`)
}
