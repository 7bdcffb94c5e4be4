package traffic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// TestSliceGrowsWhenSparseAndShrinksWhenDense: a slice that ran few events
// is followed by one twice as long, up to SliceMax; one that ran many by
// one half as long, down to the first slice's length; one in between keeps
// its length.
func TestSliceGrowsWhenSparseAndShrinksWhenDense(t *testing.T) {
	s := newSlicer(10*sim.MS, 0)
	require.Equal(t, SliceFirst, s.len)
	s.ran(sliceEventsGrow - 1)
	require.Equal(t, 2*SliceFirst, s.len)
	for range 20 {
		s.ran(0)
	}
	require.Equal(t, SliceMax, s.len, "a sparse load's slices grow to SliceMax and no further")
	s.ran(sliceEventsGrow)
	s.ran(sliceEventsShrink)
	require.Equal(t, SliceMax, s.len, "between the two bounds the length stays")
	s.ran(sliceEventsShrink + 1)
	require.Equal(t, SliceMax/2, s.len)
	for range 20 {
		s.ran(1 << 20)
	}
	require.Equal(t, SliceFirst, s.len, "a dense load's slices shrink to the first slice's length and no further")

	short := newSlicer(200*sim.US, 0)
	require.Equal(t, 2*sim.US, short.len, "a short run's first slice is a hundredth of it")
}

// TestTracedRunSlicesStayAtTheSamplingInterval: a traced run samples its
// counters at the end of every slice, so its slices keep the sampling
// interval however few events they run.
func TestTracedRunSlicesStayAtTheSamplingInterval(t *testing.T) {
	s := newSlicer(10*sim.MS, 5*sim.US)
	for range 10 {
		s.ran(0)
	}
	require.Equal(t, 5*sim.US, s.len)
	s.ran(1 << 20)
	require.Equal(t, 5*sim.US, s.len)
}

// TestWhereSlicesEndChangesNoResult: each whole-simulator load gives
// byte-identical results with slices of its own choosing and with slices
// of a fixed odd length, short or long.
func TestWhereSlicesEndChangesNoResult(t *testing.T) {
	for _, c := range []struct {
		name string
		load wholeLoad
		set  string
	}{
		{"quickstart", quickstartLoad, "run.duration_us=100"},
		{"bind", bindLoad, "run.duration_us=100"},
		{"rdma", rdmaLoad, "run.duration_us=100"},
		{"register", registerLoad, "run.ops=60"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := c.load.point(t, c.set)
			own := runEncoded(t, w, RunOptions{})
			for _, fixed := range []sim.Tick{777 * sim.NS, 3*sim.MS + 1} {
				require.Equal(t, own, runEncoded(t, w, RunOptions{slice: fixed}), "slices of %v", fixed)
			}
		})
	}
}

// TestSparseLoadRunsInFewSlices: a RegisterMr load, whose firmware keeps
// the engine idle for tens of microseconds at a time, grows its slices:
// it stops between them far fewer times than slices of SliceFirst would.
func TestSparseLoadRunsInFewSlices(t *testing.T) {
	w := registerLoad.point(t, "run.ops=60")
	count := func(opts RunOptions) int {
		n := 0
		opts.Progress = func(float64) { n++ }
		_, err := RunPoint(w, opts)
		require.NoError(t, err)
		return n
	}
	own, first := count(RunOptions{}), count(RunOptions{slice: SliceFirst})
	t.Logf("%d slices, %d of SliceFirst", own, first)
	require.Greater(t, first, 300, "the load runs milliseconds of simulated time")
	require.Less(t, own, first/10)
}

// runEncoded runs point w with opts and returns its result as JSON.
func runEncoded(t *testing.T, w *workloads.Workload, opts RunOptions) string {
	t.Helper()
	p, err := RunPoint(w, opts)
	require.NoError(t, err)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return string(b)
}
