package nic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// frLoadStats runs pairs FastRegister+Invalidate pairs on 16 QPs x 8 MRs
// and returns every statistic and the events run.
func frLoadStats(t *testing.T, pairs uint64) ([]sim.StatValue, uint64) {
	h := newHarness(t, DefaultSpec())
	d := newFRDriver(t, h, 16, 8, 1, pairs)
	d.start()
	h.run()
	require.Equal(t, pairs, d.done)
	return h.reg.Snapshot(), h.env.Engine.Executed()
}

// A stage whose output queue is full reserves the tick at which its head
// item would find it still full instead of queuing it: every statistic of
// a loaded pipeline is the one the queued ticks give, with fewer events.
func TestStallTickLeftOutChangesNoStatistic(t *testing.T) {
	const pairs = 3000
	got, gotEvents := frLoadStats(t, pairs)
	idleStallTicks = false
	defer func() { idleStallTicks = true }()
	want, wantEvents := frLoadStats(t, pairs)
	require.Equal(t, want, got)
	require.Less(t, gotEvents, wantEvents, "no stall tick was left out")
	var stalls uint64
	for _, v := range got {
		if v.Count != nil && strings.HasSuffix(v.Name, ".OutStalls") {
			stalls += *v.Count
		}
	}
	require.Positive(t, stalls, "the load never filled a stage's output queue")
}
