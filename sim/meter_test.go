package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMeterCountsOnlyInsideTheWindow(t *testing.T) {
	ms := NewMeters()
	m, err := ms.New("Stage", "slots", 1)
	require.NoError(t, err)
	m.Busy(0, 50) // before the window: not counted
	require.NoError(t, ms.Window(100, 200, 0))
	m.Busy(90, 110)  // 10 inside
	m.Busy(150, 170) // 20 inside
	m.Busy(190, 260) // 10 inside
	require.InDelta(t, 0.40, m.Utilisation(), 1e-12)
}

func TestMeterUtilisationIsBusyOverCapacityTimesWindow(t *testing.T) {
	ms := NewMeters()
	tags, err := ms.New("Tags", "tags", 4)
	require.NoError(t, err)
	require.NoError(t, ms.Window(0, 1000, 0))
	tags.Set(0, 4)   // all 4 held for 500 ps
	tags.Set(500, 1) // then 1 for the rest
	ms.Finish()
	require.InDelta(t, (4*500+1*500)/(4*1000.0), tags.Utilisation(), 1e-12)
}

func TestMeterSeriesSplitsSpansAcrossIntervals(t *testing.T) {
	ms := NewMeters()
	m, err := ms.New("Link", "bytes", 1)
	require.NoError(t, err)
	require.NoError(t, ms.Window(0, 250, 100))
	m.Busy(50, 230) // 50 in [0,100), 100 in [100,200), 30 in [200,250)
	require.Equal(t, []float64{0.5, 1.0, 30.0 / 50}, m.Series())
	require.InDelta(t, 180.0/250, m.Utilisation(), 1e-12)
}

func TestMeterRegisteredTwiceOrEmptyIsRefused(t *testing.T) {
	ms := NewMeters()
	_, err := ms.New("A", "u", 1)
	require.NoError(t, err)
	_, err = ms.New("A", "u", 1)
	require.ErrorContains(t, err, "registered twice")
	_, err = ms.New("B", "u", 0)
	require.ErrorContains(t, err, "capacity 0")
	require.ErrorContains(t, ms.Window(10, 10, 0), "empty window")
	require.ErrorContains(t, ms.Window(0, MeterIntervalsMax+1, 1), "exceed the limit")
	require.NoError(t, ms.Window(0, 10, 0))
	require.ErrorContains(t, ms.Window(0, 10, 0), "set twice")
}

func TestBusiestNamesTheMostUtilisedMeterAndBreaksTiesByName(t *testing.T) {
	ms := NewMeters()
	b, _ := ms.New("B", "u", 1)
	a, _ := ms.New("A", "u", 1)
	c, _ := ms.New("C", "u", 2)
	require.NoError(t, ms.Window(0, 100, 0))
	a.Busy(0, 60)
	b.Busy(0, 60)
	c.BusyN(0, 100, 1) // 50 %
	require.Equal(t, "A", ms.Busiest(nil).Name())
	require.Equal(t, "C", ms.Busiest(func(m *Meter) bool { return m.Name() == "C" }).Name())
	require.Nil(t, ms.Busiest(func(*Meter) bool { return false }))
}

func TestMeterBeforeWindowAllocatesNothing(t *testing.T) {
	ms := NewMeters()
	m, _ := ms.New("X", "u", 1)
	allocs := testing.AllocsPerRun(1000, func() { m.Busy(1, 2); m.Set(3, 1) })
	require.Zero(t, allocs)
}

func TestMetersCutEndsTheWindowEarlyForSetAndBusyMeters(t *testing.T) {
	ms := NewMeters()
	held, _ := ms.New("Held", "u", 2)
	busy, _ := ms.New("Busy", "u", 1)
	require.NoError(t, ms.Window(0, 1000, 100))
	held.Set(0, 1)
	busy.Busy(100, 250)
	require.ErrorContains(t, ms.Cut(0), "outside the window")
	require.ErrorContains(t, ms.Cut(1001), "outside the window")
	require.NoError(t, ms.Cut(250))
	ms.Finish()
	from, to, interval := ms.Span()
	require.Equal(t, [3]Tick{0, 250, 100}, [3]Tick{from, to, interval})
	require.Len(t, held.Series(), 3)
	require.InDelta(t, 0.5, held.Utilisation(), 1e-12) // 1 of 2 units over [0, 250)
	require.InDelta(t, 150.0/250, busy.Utilisation(), 1e-12)
	require.Equal(t, []float64{0, 1, 1}, busy.Series())
}

// A held meter fed by Set counts each level over exactly the time it was
// held, split at interval boundaries, whatever the levels (0 included) and
// however often the level changes at one time: the series equals the
// integral computed picosecond by picosecond.
func TestMeterSetSeriesEqualsTheLevelIntegral(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "meter-set")
	const from, to, interval = 300, 5300, 700
	ms := NewMeters()
	m, err := ms.New("Tags", "tags", 8)
	require.NoError(t, err)
	const last = to + 500 + 2*399 // the latest time the steps below reach
	level := make([]uint64, last) // level[ps], for the reference
	var now Tick
	var cur uint64
	set := func(at Tick, l uint64) {
		for ps := now; ps < at; ps++ {
			level[ps] = cur
		}
		m.Set(at, l)
		now, cur = at, l
	}
	set(0, 3) // before the window
	require.NoError(t, ms.Window(from, to, interval))
	for now < to+500 {
		set(now+Tick(rng.IntN(3)*rng.IntN(400)), uint64(rng.IntN(3)*rng.IntN(9)))
	}
	ms.Finish()
	got := m.Series()
	require.Len(t, got, 8)
	for k := range got {
		lo, hi := Tick(from+k*interval), min(Tick(from+(k+1)*interval), to)
		var sum uint64
		for ps := lo; ps < hi; ps++ {
			sum += level[ps]
		}
		require.Equal(t, float64(sum)/(8*float64(hi-lo)), got[k], "interval %d", k)
	}
}

// Spans recorded after Cut, in intervals the cut dropped, count nowhere
// (and touch no dropped interval), even in the interval the meter added to
// last.
func TestMeterSpansAfterCutInDroppedIntervalsCountNowhere(t *testing.T) {
	ms := NewMeters()
	m, _ := ms.New("Stage", "slots", 1)
	require.NoError(t, ms.Window(0, 1000, 100))
	m.Busy(310, 340) // interval 3, dropped by the cut
	m.Busy(350, 360) // the same interval: the meter now adds there first
	m.Busy(120, 170)
	require.NoError(t, ms.Cut(250))
	m.Busy(320, 330)
	m.Busy(200, 260) // 50 counted, up to the cut
	require.Equal(t, []float64{0, 0.5, 1}, m.Series())
}

// TestMeterSpanFallsInTheAccumulatorsIntervalExactly checks the wrapping
// test of whether acc takes a span against its definition, accLo <= start
// <= end <= accLo+accW (an interval of the window, so accLo+accW does not
// wrap), at the interval's ends, next to them, for reversed spans and at
// the ends of the range.
func TestMeterSpanFallsInTheAccumulatorsIntervalExactly(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	in := func(lo, w, x Tick) bool { return x >= lo && uint64(x-lo) <= uint64(w) }
	for range 2000 {
		w := Tick(r.Uint64N(1 << 40))
		lo := Tick(r.Uint64N(uint64(MaxTick - w))) // the interval ends by MaxTick
		switch r.IntN(4) {
		case 0:
			lo = MaxTick - w
		case 1:
			w = 0
		case 2:
			lo = 0
		}
		m := &Meter{accLo: lo, accW: w}
		points := []Tick{0, MaxTick, lo, lo - 1, lo + 1, lo + w, lo + w + 1, lo + w - 1, lo + w/2, Tick(r.Uint64())}
		for _, s := range points {
			for _, e := range points {
				want := in(lo, w, s) && in(lo, w, e) && s <= e
				require.Equal(t, want, m.holds(s, e), "acc [%d, %d+%d], span [%d, %d] (seed %d)", lo, lo, w, s, e, seed)
			}
		}
	}
}

// A meter fed by Set is Held unless it Serves.
func TestMeterServesIsNotHeld(t *testing.T) {
	ms := NewMeters()
	pool, _ := ms.New("Pool", "u", 1)
	link, _ := ms.New("Link", "u", 1)
	link.Serves()
	pool.Set(0, 1)
	link.Set(0, 1)
	require.True(t, pool.Held())
	require.False(t, link.Held())
}

// Waited is the share of the window in which a request waited for a unit:
// waits before the window or after its end do not count, a wait still open
// at the end counts up to it (Finish), and a level repeated changes
// nothing.
func TestWaitedCountsTheWindowsTimeWithARequestWaiting(t *testing.T) {
	ms := NewMeters()
	pool, _ := ms.New("Pool", "u", 2)
	pool.TrackWaits()
	require.True(t, pool.ReportsWaits())
	pool.Waits(0, true) // from before the window
	require.NoError(t, ms.Window(100, 1100, 0))
	pool.Waits(150, true)
	pool.Waits(200, false) // 100 to 200
	pool.Waits(200, false)
	pool.Waits(600, true)
	pool.Waits(700, false) // 600 to 700
	pool.Waits(1000, true) // 1000 to the end, 1100
	ms.Finish()
	require.InDelta(t, 0.3, pool.Waited(), 1e-12)

	quiet, _ := ms.New("Quiet", "u", 1)
	require.False(t, quiet.ReportsWaits())
	require.Zero(t, quiet.Waited())
}

// A pool binds beside a server only if it declared the servers it is held
// across and that server is not one of them; an undeclared pool never does.
func TestPoolBindsBesideOnlyServersItIsNotHeldAcross(t *testing.T) {
	ms := NewMeters()
	tags, _ := ms.New("NIC.PCIe.Tags", "tags", 32)
	batch, _ := ms.New("NIC.QP[0].Fetch", "fetches", 1)
	link, _ := ms.New("NIC.PCIe.Down", "transmitters", 1)
	dma, _ := ms.New("NIC.DMA.ReadChannels", "channels", 2)
	tags.HeldAcross("NIC.PCIe.", "Host.IOMMU.")
	require.False(t, tags.BindsBeside(link))
	require.True(t, tags.BindsBeside(dma))
	require.False(t, batch.BindsBeside(dma))
	var unregistered *Meter
	unregistered.HeldAcross("NIC.PCIe.")
	unregistered.TrackWaits()
}
