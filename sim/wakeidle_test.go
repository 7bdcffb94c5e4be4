package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// wakeIdleTicker is a WakeIdler whose ticks make no progress; idle is what
// IdleOnWake answers.
type wakeIdleTicker struct {
	idle             bool
	ticks, idleTicks []Tick
}

func (c *wakeIdleTicker) Tick(now Tick) bool   { c.ticks = append(c.ticks, now); return false }
func (c *wakeIdleTicker) IdleTick(at Tick)     { c.idleTicks = append(c.idleTicks, at) }
func (c *wakeIdleTicker) IdleOnWake(Tick) bool { return c.idle }

// runWakes wakes a WakeIdler at 1500 ps (idle then) and, when also, again
// at 1700 ps after it stopped being idle; it returns the ticker, the
// driver's tick count and the events run.
func runWakes(t *testing.T, all, also bool) (*wakeIdleTicker, uint64, uint64) {
	e := NewEngine()
	if all {
		e.LeaveNothingOut()
	}
	clk, err := NewClockDomain("clk", 1000)
	require.NoError(t, err)
	c := &wakeIdleTicker{idle: true}
	d := NewTickDriver("C", clk, e, c)
	require.NoError(t, e.Schedule(1500, PrioDefault, HandlerFunc(func(Tick, uint64) { d.Wake() }), 0))
	if also {
		require.NoError(t, e.Schedule(1700, PrioDefault, HandlerFunc(func(Tick, uint64) {
			c.idle = false
			d.Wake()
		}), 0))
	}
	e.Run()
	return c, d.Ticks(), e.Executed()
}

// A wake that the component says can only give an idle tick reserves the
// tick: no event runs for it, and its bookkeeping runs at its edge.
func TestWakeOfIdleComponentReservesTheTick(t *testing.T) {
	c, ticks, events := runWakes(t, false, false)
	require.Empty(t, c.ticks)
	require.Equal(t, []Tick{2000}, c.idleTicks)
	require.Equal(t, uint64(1), ticks)
	require.Equal(t, uint64(1), events, "only the waking event ran")

	ref, refTicks, refEvents := runWakes(t, true, false)
	require.Equal(t, []Tick{2000}, ref.ticks, "an engine that leaves nothing out ticks there")
	require.Equal(t, ticks, refTicks)
	require.Equal(t, events+1, refEvents)
}

// A wake before the reserved tick's place makes it a real tick at the
// same edge.
func TestWakeBeforeReservedIdleTickMakesItReal(t *testing.T) {
	c, ticks, _ := runWakes(t, false, true)
	require.Equal(t, []Tick{2000}, c.ticks)
	require.Empty(t, c.idleTicks)
	require.Equal(t, uint64(1), ticks)
}
