package traffic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// releaser completes one pending setup call per event.
type releaser struct{ s *setup }

func (r releaser) Handle(sim.Tick, uint64) { r.s.release() }

// Setup runs for as long as calls keep completing, however long that takes
// in simulated time (a million MRs' firmware commands take ~52 s), and
// fails only when no call completes for setupStallSteps steps.
func TestSetupRunsWhileCallsCompleteAndFailsWhenNoneDoes(t *testing.T) {
	m, err := Build(load(t, "run: {duration_us: 1}\ngenerators: [{kind: dma_read}]\n").Points[0])
	require.NoError(t, err)
	eng := m.Env.Engine
	start := eng.Now()
	stall := setupStep * setupStallSteps
	s := &setup{m: m, waiting: 4}
	for i := 1; i <= 4; i++ { // one call each 0.9 stall windows: 3.6 windows in all
		eng.Schedule(start+sim.Tick(i)*stall*9/10, sim.PrioDefault, releaser{s}, 0)
	}
	require.NoError(t, s.run())
	require.Greater(t, eng.Now()-start, 3*stall)

	s = &setup{m: m, waiting: 2}
	eng.Schedule(eng.Now()+stall/2, sim.PrioDefault, releaser{s}, 0)
	err = s.run()
	require.ErrorContains(t, err, "setup: 1 creation calls still pending, none completed in the last 1s of simulated time")
}

// Every kind keeps at most setupWindow creation calls pending (here 100,
// above the firmware's default command queue of 32 and below each source's calls) and makes
// more as they complete (two batches in order where a source has two: a
// bind's MRs, then its windows): the firmware's command queue is never
// short of work, so the run is byte-identical to making every call at once.
func TestSetupWindowGivesTheResultsOfMakingEveryCallAtOnce(t *testing.T) {
	for _, gen := range []string{
		"{kind: fast_register_invalidate, streams: 64, outstanding: 16, mr_pages: 4}",
		"{kind: register_mr, streams: 32, outstanding: 8}",
		"{kind: fr_write_send_inv, streams: 16, outstanding: 16}",
	} {
		src := "run: {warmup_us: 5, duration_us: 20}\ngenerators: [" + gen + "]\n"
		run := func(window int) []byte {
			defer func(w int) { setupWindow = w }(setupWindow)
			setupWindow = window
			b, err := json.Marshal(runSrc(t, src))
			require.NoError(t, err)
			return b
		}
		windowed, atOnce := run(100), run(1<<20)
		require.Equal(t, string(atOnce), string(windowed), gen)
		require.Contains(t, string(windowed), `"setup_ps":`)
	}
}

// Where a created MR is registered from its creation callback (bind's MRs,
// the remote MRs of rdma_write), a window interleaves the registrations
// with the creations still to make, as a consumer keeping setupWindow calls
// outstanding would: every object is still made, the run is clean, and
// setup takes as long within 2 % (the figures of the window move a little
// with the order the objects got their indexes in).
func TestSetupWindowMakesEveryObjectWhereCallbacksIssueMore(t *testing.T) {
	for _, gen := range []string{
		"{kind: bind_invalidate, streams: 128, outstanding: 2, mr_pages: 1}",
		"{kind: rdma_write, remote_mrs: 300, remote_pages: 1}",
	} {
		src := "run: {warmup_us: 20, duration_us: 200}\ngenerators: [" + gen + "]\n"
		run := func(window int) *results.PointResult {
			defer func(w int) { setupWindow = w }(setupWindow)
			setupWindow = window
			return &runSrc(t, src).Points[0]
		}
		windowed, atOnce := run(100), run(1<<20)
		g := windowed.Generators[0]
		require.Zero(t, g.Failed, gen)
		require.Positive(t, g.Completed, gen)
		require.InEpsilon(t, float64(atOnce.SetupPS), float64(windowed.SetupPS), 0.02, gen)
	}
}

// A bind setup's registrations count as progress: 21,000 MRs registered
// one after the other take over 1 s of firmware time, which a setup that
// saw no call complete would refuse.
func TestBindSetupOfManyMRsIsProgressNotAStall(t *testing.T) {
	r := runSrc(t, "adapter: {nic: {qps_max: 32768, cqs_max: 32768}}\nrun: {warmup_us: 1, duration_us: 2}\n"+
		"generators: [{kind: bind_invalidate, streams: 21000, outstanding: 1, mr_pages: 1}]\n")
	require.Greater(t, r.Points[0].SetupPS, uint64(setupStep*setupStallSteps))
}
