//go:build reverseties

package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests of a check build (make same-time-order; make test runs them
// with -tags reverseties -run Reversed). The ordinary build's order is
// TestSameTimeEventsRunByPriorityThenSequence's.

// TestReversedBuildRunsSameTimeEventsLastScheduledFirst: within one time
// and priority the event scheduled last runs first, also one scheduled by
// an event of that time; time and priority still order the rest.
func TestReversedBuildRunsSameTimeEventsLastScheduledFirst(t *testing.T) {
	e := NewEngine()
	r := scheduleTies(t, e)
	require.NoError(t, e.Schedule(100, PrioTick, HandlerFunc(func(now Tick, _ uint64) {
		r.log = append(r.log, "100:d:6")
		require.NoError(t, e.Schedule(now, PrioTick, &recItem{r, "c"}, 7))
	}), 6))
	e.Run()
	require.Equal(t, []string{"50:a:4", "100:a:5", "100:b:2", "100:d:6", "100:c:7", "100:c:3", "100:a:1"}, r.log)
}

// TestReversedBuildLeavesNothingOut: reserving an event rests on keys
// taken later sorting later, so a reversed build queues every event.
func TestReversedBuildLeavesNothingOut(t *testing.T) {
	e := NewEngine()
	require.True(t, e.all)
	require.False(t, e.Virtual(e.Reserve(10, PrioTick)), "a reversed engine must refuse to leave an event out")
}

// TestReversedBuildStepsAndGuardsTheSequence: Step runs one event, and the
// guard still panics once the keys taken reach seqSafe, counting down.
func TestReversedBuildStepsAndGuardsTheSequence(t *testing.T) {
	e := NewEngine()
	n := 0
	h := HandlerFunc(func(Tick, uint64) { n++ })
	e.After(1, PrioDefault, h, 0)
	e.After(1, PrioDefault, h, 0)
	require.True(t, e.Step())
	require.Equal(t, 1, n)

	e = NewEngine()
	e.seq = (seqSafe - 2) ^ seqXor // two keys short of the guard
	e.After(1, PrioDefault, h, 0)
	e.After(2, PrioDefault, h, 0)
	require.PanicsWithValue(t, errSeqOverflow, func() { e.Run() })
	require.Less(t, e.seq, uint64(1<<seqBits), "no key spilled into the priority bits")
}
