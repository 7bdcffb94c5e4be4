package nic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// frLoadStats runs pairs FastRegister+Invalidate pairs on 16 QPs x 8 MRs,
// on an engine that leaves nothing out when all is set, and returns every
// statistic and the events run.
func frLoadStats(t *testing.T, pairs uint64, all bool) ([]sim.StatValue, uint64) {
	h := frLoad(t, pairs, all)
	return h.reg.Snapshot(), h.env.Engine.Executed()
}

// frLoad runs the load of frLoadStats and returns its harness.
func frLoad(t *testing.T, pairs uint64, all bool) *harness {
	h := newHarness(t, DefaultSpec())
	if all {
		h.env.Engine.LeaveNothingOut()
	}
	d := newFRDriver(t, h, 16, 8, 1, pairs)
	d.start()
	h.run()
	require.Equal(t, pairs, d.done)
	return h
}

// The ticks the model leaves out (a stage's tick that finds its output
// queue still full, the TPT's tick after it drained, a DMA channel's end
// that no request waits for) change no statistic of a loaded pipeline:
// every one is the one an engine that runs them all gives, with fewer
// events.
func TestLeftOutTicksChangeNoStatistic(t *testing.T) {
	const pairs = 3000
	got, gotEvents := frLoadStats(t, pairs, false)
	want, wantEvents := frLoadStats(t, pairs, true)
	require.Equal(t, want, got)
	require.Less(t, gotEvents, wantEvents, "nothing was left out")
	var stalls uint64
	for _, v := range got {
		if v.Count != nil && strings.HasSuffix(v.Name, ".OutStalls") {
			stalls += *v.Count
		}
	}
	require.Positive(t, stalls, "the load never filled a stage's output queue")
}

// stageTicks runs the FastRegister+Invalidate load of frLoadStats and
// returns every stage's tick count, the MPT update's quiet ticks, the
// statistics and the events run.
func stageTicks(t *testing.T, pairs uint64, all bool) (map[string]uint64, uint64, []sim.StatValue, uint64) {
	h := frLoad(t, pairs, all)
	ticks, quiet := map[string]uint64{}, uint64(0)
	for _, s := range h.a.stages {
		ticks[s.name] = s.drv.Ticks()
		if strings.HasSuffix(s.name, ".MPTUpdate") {
			quiet += s.drv.QuietTicks()
		}
	}
	return ticks, quiet, h.reg.Snapshot(), h.env.Engine.Executed()
}

// A stage woken by a message it cannot take before its next accepting
// cycle (the MPT update, one item per four cycles, gets a FastRegister's
// Invalidate a cycle after it) does not tick for it: the tick is counted
// as the engine that runs every event runs it, and every statistic is the
// same.
func TestStageWokenInItsAcceptIntervalDoesNotTick(t *testing.T) {
	const pairs = 2000
	gotTicks, quiet, got, gotEvents := stageTicks(t, pairs, false)
	wantTicks, wantQuiet, want, wantEvents := stageTicks(t, pairs, true)
	require.Equal(t, want, got)
	require.Equal(t, wantTicks, gotTicks)
	require.Zero(t, wantQuiet, "an engine that leaves nothing out runs every tick")
	require.GreaterOrEqual(t, quiet, uint64(pairs/2), "the MPT update ticked in its accept interval")
	require.Less(t, gotEvents, wantEvents)
}

// A writing stage's tick that can only find no TPT write slot (an MPT
// update's, queued for the edge at which the MTT write took the last one;
// an MTT write's whose output queue is full too) does not run: its stalls
// are counted as that tick counts them (TPT.WriteStalls and the stages'
// AcceptStalls, OutStalls and StallPS are those of the engine that runs
// every event), with fewer events.
func TestWriteSlotStallLeftOutIsCountedAsRun(t *testing.T) {
	const pairs = 2000
	h := frLoad(t, pairs, false)
	ref := frLoad(t, pairs, true)
	require.Positive(t, h.a.Stats.TPTWriteStalls, "the load never ran out of TPT write slots")
	require.Equal(t, ref.a.Stats.TPTWriteStalls, h.a.Stats.TPTWriteStalls)
	h.a.settle()
	ref.a.settle()
	for i, s := range h.a.Stats.Stages {
		require.Equal(t, *ref.a.Stats.Stages[i], *s)
	}
	require.Less(t, h.env.Engine.Executed(), ref.env.Engine.Executed())
}
