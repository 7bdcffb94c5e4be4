package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// writeRate is the rate, in M writes/s, of a saturating stream of 64 B
// writes on spec with the DMA engine at clock, and the meter that binds it.
func writeRate(t *testing.T, spec Spec, clock sim.ClockDomain) (float64, MeterUse) {
	r, err := RunStream(spec, clock, StreamConfig{Dir: DirWrite, SizeBytes: 64, Outstanding: 128, WarmupTransfers: 500, MeasureTransfers: 5000})
	require.NoError(t, err)
	return r.EffectiveGbps * 1e3 / (64 * 8), r.BoundBy
}

// TestNFPEngineRatesMatchCalibrationAnchors: the NFP-6000 engine, in its
// own cycles, gives the two rates it was calibrated from (docs/sources.md
// 1.3: 47.4 M writes/s and 62.5 M reads/s at 64 B), to within the rounding
// to whole cycles, and is what binds them.
func TestNFPEngineRatesMatchCalibrationAnchors(t *testing.T) {
	w, bound := writeRate(t, NFP6000Spec(), nfpClock)
	require.InEpsilon(t, 47.40, w, 0.015, "writes %.2f M/s", w)
	require.Equal(t, "NIC.DMA.WriteChannels", bound.Name)
	// Reads with tags enough that the engine, not latency x tags, binds.
	spec := NFP6000Spec()
	spec.TagsMax, spec.HostNPHCredits = 256, 256
	r, err := RunStream(spec, nfpClock, StreamConfig{Dir: DirRead, SizeBytes: 64, Outstanding: 256, WarmupTransfers: 500, MeasureTransfers: 5000})
	require.NoError(t, err)
	rd := r.EffectiveGbps * 1e3 / (64 * 8)
	require.InEpsilon(t, 62.54, rd, 0.015, "reads %.2f M/s", rd)
	require.Equal(t, "NIC.DMA.ReadChannels", r.BoundBy.Name)
	t.Logf("NFP engine: %.2f M writes/s (measured 47.40), %.2f M reads/s (measured 62.54)", w, rd)
}

// TestSlowerNICClockLowersDMABoundRate: the engine works in NIC cycles, so
// at 100 MHz the default RNIC engine (2 write channels, 8 cycles a request)
// binds 64 B writes at 2 / 80 ns = 25 M/s, while at 1 GHz the link binds
// them well above that.
func TestSlowerNICClockLowersDMABoundRate(t *testing.T) {
	fast, fastBound := writeRate(t, DefaultSpec(), rnicClock)
	slow, slowBound := writeRate(t, DefaultSpec(), sim.ClockDomain{Name: "NIC.Clock", Period: 10000})
	t.Logf("64 B writes: %.1f M/s at 1 GHz (%s), %.1f M/s at 100 MHz (%s)", fast, fastBound.Name, slow, slowBound.Name)
	require.Equal(t, "NIC.PCIe.Up", fastBound.Name)
	require.Equal(t, "NIC.DMA.WriteChannels", slowBound.Name)
	require.InEpsilon(t, 25.0, slow, 0.01)
	require.Greater(t, fast, 2*slow)
}

// TestMoreDMAChannelsRaiseDMABoundRate: where the engine binds, doubling its
// channels doubles the rate.
func TestMoreDMAChannelsRaiseDMABoundRate(t *testing.T) {
	clock := sim.ClockDomain{Name: "NIC.Clock", Period: 10000}
	spec := DefaultSpec()
	two, _ := writeRate(t, spec, clock)
	spec.DMAWriteChannels = 4
	four, bound := writeRate(t, spec, clock)
	t.Logf("64 B writes at 100 MHz: %.1f M/s with 2 channels, %.1f M/s with 4 (%s)", two, four, bound.Name)
	require.InEpsilon(t, 2*two, four, 0.02)
	require.Equal(t, "NIC.DMA.WriteChannels", bound.Name)
}

// TestRequestCyclesDelayTheFirstTLP: a request's first TLP leaves the
// number of request cycles after the next clock edge, and its later TLPs
// TLPsPerCycle a cycle behind.
func TestRequestCyclesDelayTheFirstTLP(t *testing.T) {
	spec := DefaultSpec()
	spec.WriteRequestCycles, spec.WriteTLPsPerCycle = 5, 1
	clock := sim.ClockDomain{Name: "NIC.Clock", Period: 100000} // 10 MHz: one cycle outlasts a TLP
	env := sim.NewEnv(1)
	l, err := New("NIC.PCIe", spec, env, clock)
	require.NoError(t, err)
	up := &recorder{next: l.up.rx}
	l.up.rx = up
	env.Engine.After(12345, sim.PrioDefault, sim.HandlerFunc(func(now sim.Tick, _ uint64) {
		require.NoError(t, l.DMA().Write(0, 3*256, nil, 0))
	}), 0)
	env.Engine.Run()
	require.Len(t, up.got, 3)
	lat := sim.FromNanoseconds(spec.LinkLatencyNS)
	ser := func(n uint64) sim.Tick { return l.up.ser.Ticks(n) }
	start := clock.NextEdge(12345) + 5*clock.Period
	for k, at := range up.at {
		want := start + sim.Tick(k)*clock.Period
		require.InDelta(t, float64(want+ser(280)+lat), float64(at), float64(ser(20)), "TLP %d", k)
	}
}

// A DMA channel's end that no request waits for is reserved, not queued:
// every statistic and meter of a stream, from one outstanding transfer
// (channels mostly idle) to many (requests waiting), is the one an engine
// that leaves nothing out gives, with fewer events.
func TestReservedChannelEndsChangeNoFigure(t *testing.T) {
	defer func() { newStreamEnv = sim.NewEnv }()
	for _, c := range []StreamConfig{
		{Dir: DirWrite, SizeBytes: 64, Outstanding: 1, WarmupTransfers: 20, MeasureTransfers: 300},
		{Dir: DirRdWr, SizeBytes: 256, Outstanding: 4, WarmupTransfers: 50, MeasureTransfers: 500},
		{Dir: DirWrite, SizeBytes: 64, Outstanding: 128, WarmupTransfers: 200, MeasureTransfers: 2000},
		{Dir: DirRead, SizeBytes: 4096, Outstanding: 32, WarmupTransfers: 20, MeasureTransfers: 200},
	} {
		var events [2]uint64
		var env *sim.Env
		run := func(all bool) StreamResult {
			newStreamEnv = func(seed uint64) *sim.Env {
				env = sim.NewEnv(seed)
				if all {
					env.Engine.LeaveNothingOut()
				}
				return env
			}
			r, err := RunStream(DefaultSpec(), rnicClock, c)
			require.NoError(t, err)
			return r
		}
		got := run(false)
		events[0] = env.Engine.Executed()
		want := run(true)
		events[1] = env.Engine.Executed()
		require.Equal(t, want, got, "%+v", c)
		require.Less(t, events[0], events[1], "%+v: nothing left out", c)
	}
}
