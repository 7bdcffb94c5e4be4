package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// quietRun drives both directions at once: DMA writes upstream (one every
// gapPS, or back to back when gapPS is 0; every eighth followed by a read
// of its bytes and another by an MSI-X) while the CPU writes 256 B of
// write-combined stores downstream (four MWr, three of which change
// nothing at the NIC) every 300 ns; the host's UpdateFCs and ACKs flow
// down between them. It returns everything that reached either end, when,
// the statistics, the credit meters and the number of events run.
type quietRun struct {
	up, down   []sim.Tick
	wlog, mlog doneLog
	rlog, ilog doneLog
	stats      Stats
	levels     []uint64  // every meter's level at the end
	busy       []float64 // and its utilisation over the run: when each credit came back
	events     uint64
}

func runQuiet(t *testing.T, gapPS sim.Tick, all, late bool) quietRun {
	spec := DefaultSpec()
	spec.HostPHCredits, spec.HostPDCredits = 8, 64 // UpdateFCs matter
	env := sim.NewEnv(1)
	if all {
		env.Engine.LeaveNothingOut()
	}
	l, err := New("pcie", spec, env, rnicClock)
	require.NoError(t, err)
	_, err = l.AddMMIOSource("Host.Core[0]")
	require.NoError(t, err)
	up, down := &recorder{next: l.up.rx, late: late}, &recorder{next: l.down.rx}
	l.up.rx, l.down.rx = up, down
	var r quietRun
	const writes, mmios = 400, 60
	var w, m uint64
	var step sim.HandlerFunc
	step = func(now sim.Tick, kind uint64) {
		if kind == 0 && w < writes {
			if l.DMA().CanAccept() {
				require.NoError(t, l.DMA().Write(w*64, 64, &r.wlog, w))
				switch w % 8 {
				case 3: // reads the bytes just written: waits for their visibility
					require.NoError(t, l.DMA().Read(w*64, 64, &r.rlog, w))
				case 5:
					require.NoError(t, l.MSIX(&r.ilog, w))
				}
				w++
			}
			env.Engine.After(max(gapPS, 1000), sim.PrioDefault, step, 0)
		}
		if kind == 1 && m < mmios {
			require.NoError(t, l.MMIOWrite(0x1000+m%8*256, 256, 0, &r.mlog, m))
			m++
			env.Engine.After(300_000, sim.PrioDefault, step, 1)
		}
	}
	require.NoError(t, env.Meters.Window(0, sim.FromNanoseconds(1e6), 0))
	step(0, 0)
	step(0, 1)
	env.Engine.Run()
	r.up, r.down, r.stats, r.events = up.at, down.at, *l.Stats(), env.Engine.Executed()
	env.Meters.Finish()
	for _, mt := range env.Meters.List() {
		r.levels = append(r.levels, mt.InUse())
		r.busy = append(r.busy, mt.Utilisation())
	}
	return r
}

// requireSameRun checks that two runs delivered, completed and counted
// the same things at the same times.
func requireSameRun(t *testing.T, want, got quietRun, gap sim.Tick) {
	require.Equal(t, want.up, got.up, "gap %d: upstream arrivals", gap)
	require.Equal(t, want.down, got.down, "gap %d: downstream arrivals", gap)
	require.Equal(t, want.wlog, got.wlog, "gap %d: DMA writes visible", gap)
	require.Equal(t, want.mlog, got.mlog, "gap %d: MMIO writes arrived", gap)
	require.Equal(t, want.rlog, got.rlog, "gap %d: DMA reads done", gap)
	require.Equal(t, want.ilog, got.ilog, "gap %d: MSI-X delivered", gap)
	require.Equal(t, want.stats, got.stats, "gap %d", gap)
	require.Equal(t, want.levels, got.levels, "gap %d: meter levels", gap)
	require.Equal(t, want.busy, got.busy, "gap %d: meter utilisations", gap)
}

// A burst whose arrival changes nothing at the far end and only the
// bookkeeping of a busy peer transmitter (an UpdateFC, an ACK, a line of a
// write-combined MMIO write before its last) arrives without an event:
// every TLP reaches its end at the same time, every request completes at
// the same time and every statistic is the same as with an engine that
// leaves nothing out, whether the peer stays busy (back-to-back writes) or
// falls idle while such bursts are on the wire (sparse writes, some of
// them arriving around its UpdateFC timer).
func TestQuietArrivalsChangeNoFigure(t *testing.T) {
	for _, gap := range []sim.Tick{0, 9_000, 14_000, 19_000, 40_000} {
		got := runQuiet(t, gap, false, false)
		want := runQuiet(t, gap, true, false)
		require.NotEmpty(t, got.down)
		requireSameRun(t, want, got, gap)
		require.Less(t, got.events, want.events, "gap %d: nothing left out", gap)
	}
}

// The host takes a posted write as it leaves the NIC when its visibility
// depends only on its arrival time and the writes before it: every write
// and MSI-X is done at the same time, in the same order, every read of
// written bytes waits as long, and every statistic is the same as when the
// host takes each write on arrival, with fewer events.
func TestEarlyWritesVisibleAsOnArrival(t *testing.T) {
	for _, gap := range []sim.Tick{0, 9_000, 14_000, 19_000, 40_000} {
		got := runQuiet(t, gap, false, false)
		want := runQuiet(t, gap, false, true)
		requireSameRun(t, want, got, gap)
		require.Less(t, got.events, want.events, "gap %d: no write taken early", gap)
	}
}
