package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// quietTicker ticks until next, asking for a tick there; quiet is what
// QuietAt answers for a tick before it.
type quietTicker struct {
	d     *TickDriver
	quiet bool
	next  Tick
	ticks []Tick
}

func (c *quietTicker) Tick(now Tick) bool {
	c.ticks = append(c.ticks, now)
	if now < c.next {
		c.d.WakeAt(c.next)
	}
	return false
}

func (c *quietTicker) QuietAt(_, pending Tick) bool { return c.quiet && pending == c.next }

// quietRun asks for a tick at 5000 ps, wakes the component at 1500 ps
// (quiet then) and runs the extra wakes; it returns the ticker, the
// driver's tick count and the events run.
func quietRun(t *testing.T, all bool, wakes ...func(*quietTicker)) (*quietTicker, uint64, uint64) {
	e := NewEngine()
	if all {
		e.LeaveNothingOut()
	}
	clk, err := NewClockDomain("clk", 1000)
	require.NoError(t, err)
	c := &quietTicker{quiet: true, next: 5000}
	c.d = NewTickDriver("C", clk, e, c)
	require.NoError(t, e.Schedule(100, PrioDefault, HandlerFunc(func(Tick, uint64) { c.d.WakeAt(c.next) }), 0))
	require.NoError(t, e.Schedule(1500, PrioDefault, HandlerFunc(func(Tick, uint64) { c.d.Wake() }), 0))
	for i, w := range wakes {
		require.NoError(t, e.Schedule(Tick(1700+1000*i), PrioDefault, HandlerFunc(func(Tick, uint64) { w(c) }), 0))
	}
	e.Run()
	return c, c.d.Ticks(), e.Executed()
}

// A wake for an edge before the pending tick, whose tick the component
// says would do nothing and ask for the pending one again, reserves it:
// no event runs for it, it counts as run, and the pending tick keeps its
// place.
func TestQuietTickBeforePendingIsReserved(t *testing.T) {
	c, ticks, events := quietRun(t, false)
	require.Equal(t, []Tick{5000}, c.ticks)
	require.Equal(t, uint64(2), ticks)
	require.Equal(t, uint64(3), events, "the two waking events and the pending tick")

	ref, refTicks, refEvents := quietRun(t, true)
	require.Equal(t, []Tick{2000, 5000}, ref.ticks, "an engine that leaves nothing out ticks at both")
	require.Equal(t, ticks, refTicks)
	require.Equal(t, events+2, refEvents, "there, also the superseded pending event, left queued")
}

// A wake before the quiet tick's place makes it a real tick at its edge.
func TestWakeBeforeQuietTickMakesItReal(t *testing.T) {
	stir := func(c *quietTicker) {
		c.quiet = false
		c.d.Wake()
	}
	c, ticks, _ := quietRun(t, false, stir)
	require.Equal(t, []Tick{2000, 5000}, c.ticks)
	require.Equal(t, uint64(2), ticks)
}

// A wake after the quiet tick's place finds it run: the next tick is on
// a later edge, as after a real tick there.
func TestWakeAfterQuietTickCountsItAsRun(t *testing.T) {
	wake := func(c *quietTicker) { c.quiet = false; c.d.Wake() }
	noop := func(*quietTicker) {}
	c, ticks, _ := quietRun(t, false, noop, wake) // the wake at 2700 ps
	ref, refTicks, _ := quietRun(t, true, noop, wake)
	require.Equal(t, []Tick{2000, 3000, 5000}, ref.ticks)
	require.Equal(t, []Tick{3000, 5000}, c.ticks)
	require.Equal(t, refTicks, ticks)
}

// A message arriving by the quiet tick's edge may be taken there: the
// arrival makes the quiet tick real.
func TestArrivalByQuietTickMakesItReal(t *testing.T) {
	var p *Port[int]
	send := func(c *quietTicker) {
		c.quiet = false
		require.NoError(t, p.Send(1))
	}
	e := NewEngine()
	clk, err := NewClockDomain("clk", 1000)
	require.NoError(t, err)
	c := &quietTicker{quiet: true, next: 5000}
	c.d = NewTickDriver("C", clk, e, c)
	p = MustNewPort[int]("P", e, 4, 200)
	p.Connect(nil, c.d)
	require.NoError(t, e.Schedule(100, PrioDefault, HandlerFunc(func(Tick, uint64) { c.d.WakeAt(c.next) }), 0))
	require.NoError(t, e.Schedule(1500, PrioDefault, HandlerFunc(func(Tick, uint64) { c.d.Wake() }), 0))
	require.NoError(t, e.Schedule(1600, PrioDefault, HandlerFunc(func(Tick, uint64) { send(c) }), 0))
	e.Run()
	require.Equal(t, []Tick{2000, 5000}, c.ticks)
}
