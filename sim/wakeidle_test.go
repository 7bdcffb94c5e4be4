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
func (c *wakeIdleTicker) IdleTickOnWake(at, now Tick) bool {
	c.IdleTick(at)
	return c.IdleOnWake(now)
}

// newIdleDriver returns an engine (one that leaves nothing out when all
// is set) and a wakeIdleTicker driven on a 1000 ps clock.
func newIdleDriver(t *testing.T, all bool) (*Engine, *wakeIdleTicker, *TickDriver) {
	e := NewEngine()
	if all {
		e.LeaveNothingOut()
	}
	clk, err := NewClockDomain("clk", 1000)
	require.NoError(t, err)
	c := &wakeIdleTicker{}
	return e, c, NewTickDriver("C", clk, e, c)
}

// runWakes wakes a WakeIdler at 1500 ps (idle then) and, when also, again
// at 1700 ps after it stopped being idle; it returns the ticker, the
// driver's tick count and the events run.
func runWakes(t *testing.T, all, also bool) (*wakeIdleTicker, uint64, uint64) {
	e, c, d := newIdleDriver(t, all)
	c.idle = true
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

// reserveRun asks for a tick at 2000 ps, then, at 2000 ps before it, says
// it will be idle (ReserveIdle); wake, when set, wakes the driver after
// that, still before the tick's place. It returns the ticker, whether the
// tick was reserved and the events run.
func reserveRun(t *testing.T, all, wake bool) (*wakeIdleTicker, bool, uint64) {
	e, c, d := newIdleDriver(t, all)
	var reserved bool
	require.NoError(t, e.Schedule(100, PrioDefault, HandlerFunc(func(Tick, uint64) { d.WakeAt(2000) }), 0))
	require.NoError(t, e.Schedule(2000, PrioDeliver, HandlerFunc(func(Tick, uint64) { reserved = d.ReserveIdle() }), 0))
	if wake {
		require.NoError(t, e.Schedule(2000, PrioWake, HandlerFunc(func(Tick, uint64) { d.Wake() }), 0))
	}
	e.Run()
	require.Equal(t, uint64(1), d.Ticks())
	return c, reserved, e.Executed()
}

// A queued tick that an event of its edge, before it, finds can only be
// idle is reserved: no event runs for it and its bookkeeping runs there.
func TestQueuedTickFoundIdleIsReserved(t *testing.T) {
	c, reserved, events := reserveRun(t, false, false)
	require.True(t, reserved)
	require.Empty(t, c.ticks)
	require.Equal(t, []Tick{2000}, c.idleTicks)
	require.Equal(t, uint64(2), events, "only the two events that asked")

	ref, refReserved, refEvents := reserveRun(t, true, false)
	require.False(t, refReserved, "an engine that leaves nothing out runs it")
	require.Equal(t, []Tick{2000}, ref.ticks)
	require.Equal(t, events+1, refEvents)
}

// A wake after ReserveIdle, before the tick's place, makes it real again.
func TestWakeAfterReserveIdleMakesTheTickReal(t *testing.T) {
	c, reserved, _ := reserveRun(t, false, true)
	require.True(t, reserved)
	require.Equal(t, []Tick{2000}, c.ticks)
	require.Empty(t, c.idleTicks)
}
