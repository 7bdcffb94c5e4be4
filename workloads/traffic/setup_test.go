package traffic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

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

// fast_register_invalidate keeps at most setupWindow creation calls pending
// and makes more as they complete: the firmware's command queue is never
// short of work, so the run is byte-identical to making every call at once.
func TestSetupWindowGivesTheResultsOfMakingEveryCallAtOnce(t *testing.T) {
	src := "run: {warmup_us: 5, duration_us: 20}\n" +
		"generators: [{kind: fast_register_invalidate, streams: 64, outstanding: 16, mr_pages: 4}]\n"
	run := func(window int) []byte {
		defer func(w int) { setupWindow = w }(setupWindow)
		setupWindow = window
		b, err := json.Marshal(runSrc(t, src))
		require.NoError(t, err)
		return b
	}
	windowed, atOnce := run(100), run(1<<20)
	require.Equal(t, string(atOnce), string(windowed))
	require.Contains(t, string(windowed), `"setup_ps":`)
}
