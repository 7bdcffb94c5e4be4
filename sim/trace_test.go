package sim

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOverlappingSpansGoToLanesSoNoSlicePartiallyOverlaps: work requests of
// one queue overlap in time; the trace lays them on lanes of the track and
// every slice then nests or follows, to the nanosecond, even where
// picosecond ends round the same way.
func TestOverlappingSpansGoToLanesSoNoSlicePartiallyOverlaps(t *testing.T) {
	var buf bytes.Buffer
	tr := NewChromeTrace(&buf)
	// Three overlapping requests, then one that fits after the first.
	spans := []Span{
		{Track: "NIC work requests/QP[0]", Name: "FastRegister", Start: 51370 * NS, End: 56430*NS + 700,
			Args:   []Arg{{"qp", 0}, {"index", uint64(1)}, {"op", "FastRegister"}, {"pages", uint32(1)}, {"status", "STATUS_SUCCESS"}},
			Phases: []Phase{{"post->doorbell", 51370 * NS, 52000*NS + 1}, {"doorbell->fetch", 52000*NS + 1, 56430*NS + 700}}},
		{Track: "NIC work requests/QP[0]", Name: "Invalidate", Start: 56180 * NS, End: 72650 * NS},
		{Track: "NIC work requests/QP[0]", Name: "FastRegister", Start: 56400 * NS, End: 60000 * NS},
		{Track: "NIC work requests/QP[0]", Name: "Invalidate", Start: 56430*NS + 900, End: 70000 * NS},
	}
	for i := range spans {
		tr.Span(&spans[i])
	}
	tr.Counter("NIC.PCIe", "NIC.PCIe.Up.TLPs", "per_us", 0, 12.5)
	require.NoError(t, tr.Close())
	sum, err := CheckChromeTrace(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err, buf.String())
	require.Equal(t, []string{"NIC work requests/QP[0]", "NIC work requests/QP[0] #1", "NIC work requests/QP[0] #2"}, sum.Tracks,
		"three lanes: the fourth request starts after the first ends")
	require.Equal(t, 6, sum.Slices)
	require.Equal(t, []string{"NIC.PCIe/NIC.PCIe.Up.TLPs per_us"}, sum.Counters)
	for _, k := range []string{"qp", "index", "op", "pages", "status"} {
		require.True(t, sum.ArgKeys["NIC work requests"][k], k)
	}
}

// TestCheckChromeTraceFindsAPartialOverlap: the check itself fails on the
// overlap Perfetto would drop.
func TestCheckChromeTraceFindsAPartialOverlap(t *testing.T) {
	bad := `{"traceEvents":[
{"ph":"X","pid":1,"tid":1,"name":"a","ts":51.370,"dur":5.060},
{"ph":"X","pid":1,"tid":1,"name":"b","ts":56.180,"dur":16.470},
{"ph":"M","pid":1,"name":"process_name","args":{"name":"p"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"t"}}]}`
	_, err := CheckChromeTrace(bytes.NewReader([]byte(bad)))
	require.ErrorContains(t, err, "partially overlaps")
	unnamed := `{"traceEvents":[{"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":1}]}`
	_, err = CheckChromeTrace(bytes.NewReader([]byte(unnamed)))
	require.ErrorContains(t, err, "no process_name")
}
