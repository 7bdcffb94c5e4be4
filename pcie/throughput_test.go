package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestLargeReadGoodputNeverFallsWithSize: the host's latency applies per
// MRd, so a long DMA read streams: on both presets' engines, read goodput
// never falls as the transfer grows from 64 B to 1 MiB, and from 256 B on
// it is the link's (the byte-count model's, within 0.5 %).
func TestLargeReadGoodputNeverFallsWithSize(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  Spec
		clock sim.ClockDomain
	}{{"nfp6000-e5", NFP6000Spec(), nfpClock}, {"generic", DefaultSpec(), rnicClock}} {
		prev := 0.0
		for size := uint64(64); size <= 1<<20; size *= 2 {
			cfg := DefaultStreamConfig(DirRead, size, c.spec)
			cfg.MeasureTransfers = max(40, int(min(uint64(cfg.MeasureTransfers), (8<<20)/size)))
			cfg.WarmupTransfers = max(8, cfg.MeasureTransfers/4)
			r, err := RunStream(c.spec, c.clock, cfg)
			require.NoError(t, err)
			model := ByteModelGoodputGbps(c.spec, DirRead, size)
			t.Logf("%s %7d B: %.3f Gb/s (link %.3f), bound by %s", c.name, size, r.EffectiveGbps, model, r.BoundBy.Name)
			require.GreaterOrEqual(t, r.EffectiveGbps, prev*(1-1e-3), "%s %d B: goodput fell", c.name, size)
			if size >= 256 {
				require.InEpsilon(t, model, r.EffectiveGbps, 0.005, "%s %d B", c.name, size)
				require.Equal(t, "NIC.PCIe.Down", r.BoundBy.Name)
			}
			prev = r.EffectiveGbps
		}
	}
}

// TestSaturatedDirectionMeterReadsFull: a saturating write stream keeps
// the upstream meter at ~100 %, in agreement with the direction's busy
// time; the downstream direction only carries the DLLPs that acknowledge
// it, and the read side is idle (0 %). A link with no traffic reads 0 %
// everywhere.
func TestSaturatedDirectionMeterReadsFull(t *testing.T) {
	r, err := RunStream(DefaultSpec(), rnicClock, StreamConfig{Dir: DirWrite, SizeBytes: 4096, Outstanding: 64, WarmupTransfers: 50, MeasureTransfers: 500})
	require.NoError(t, err)
	use := map[string]float64{}
	for _, m := range r.Meters {
		use[m.Name] = m.Utilisation
	}
	require.InDelta(t, 1, use["NIC.PCIe.Up"], 0.005)
	require.InDelta(t, r.UpUtilization, use["NIC.PCIe.Up"], 0.002)
	require.InDelta(t, r.DownUtilization, use["NIC.PCIe.Down"], 0.002)
	require.Less(t, use["NIC.PCIe.Down"], 0.06, "DLLPs only")
	require.Zero(t, use["NIC.PCIe.Tags"])
	require.Zero(t, use["NIC.DMA.ReadChannels"])
	require.Equal(t, "NIC.PCIe.Up", r.BoundBy.Name)
	for _, n := range []string{"NIC.DMA.WriteChannels", "NIC.PCIe.Up.Credits.PH", "NIC.PCIe.Up.Credits.PD", "NIC.PCIe.Down.Credits.PH"} {
		require.Contains(t, use, n)
	}

	env := sim.NewEnv(1)
	l, err := New("NIC.PCIe", DefaultSpec(), env, rnicClock)
	require.NoError(t, err)
	require.NoError(t, env.Meters.Window(0, sim.US, 0))
	env.Engine.After(sim.US, sim.PrioDefault, sim.HandlerFunc(func(sim.Tick, uint64) {}), 0)
	env.Engine.Run()
	l.settleMeters(env.Engine.Now())
	for _, m := range env.Meters.List() {
		require.Zero(t, m.Utilisation(), m.Name())
	}
}
