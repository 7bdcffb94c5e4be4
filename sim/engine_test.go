package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

type recorder struct {
	log []string
}

type recItem struct {
	r    *recorder
	name string
}

func (it *recItem) Handle(now Tick, arg uint64) {
	it.r.log = append(it.r.log, fmt.Sprintf("%d:%s:%d", now, it.name, arg))
}

func TestSameTimeEventsRunByPriorityThenSequence(t *testing.T) {
	e := NewEngine()
	r := scheduleTies(t, e)
	e.Run()
	require.Equal(t, []string{"50:a:4", "100:b:2", "100:a:5", "100:a:1", "100:c:3"}, r.log)
}

// scheduleTies schedules five events on e, at two times and three
// priorities, with ties of time and priority; they log to the recorder
// it returns.
func scheduleTies(t *testing.T, e *Engine) *recorder {
	r := &recorder{}
	a, b, c := &recItem{r, "a"}, &recItem{r, "b"}, &recItem{r, "c"}
	require.NoError(t, e.Schedule(100, PrioTick, a, 1))
	require.NoError(t, e.Schedule(100, PrioDeliver, b, 2))
	require.NoError(t, e.Schedule(100, PrioTick, c, 3))
	require.NoError(t, e.Schedule(50, PrioStats, a, 4))
	require.NoError(t, e.Schedule(100, PrioDeliver, a, 5))
	return r
}

func TestSchedulingInThePastIsAnError(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	require.NoError(t, e.Schedule(10, PrioDefault, &recItem{r, "x"}, 0))
	e.Run()
	err := e.Schedule(9, PrioDefault, &recItem{r, "y"}, 0)
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrPastEvent))
	require.Equal(t, 0, e.Pending(), "a refused event must not be queued")
	require.NoError(t, e.Schedule(10, PrioDefault, &recItem{r, "z"}, 0), "now itself is allowed")
}

func TestRunUntilRunsEventsAtTheBoundaryAndAdvancesTime(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	for _, at := range []Tick{5, 10, 10, 11, 20} {
		require.NoError(t, e.Schedule(at, PrioDefault, &recItem{r, "e"}, uint64(at)))
	}
	e.RunUntil(10)
	require.Equal(t, []string{"5:e:5", "10:e:10", "10:e:10"}, r.log)
	require.Equal(t, Tick(10), e.Now())
	e.RunUntil(15)
	require.Equal(t, Tick(15), e.Now())
	require.Len(t, r.log, 4)
	// An event scheduled between the boundary and the next pending one must
	// still run first.
	require.NoError(t, e.Schedule(16, PrioDefault, &recItem{r, "late"}, 16))
	e.Run()
	require.Equal(t, []string{"5:e:5", "10:e:10", "10:e:10", "11:e:11", "16:late:16", "20:e:20"}, r.log)
}

type stopper struct{ e *Engine }

func (s stopper) Handle(Tick, uint64) { s.e.Stop() }

func TestStopEndsRunAfterTheCurrentEvent(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	require.NoError(t, e.Schedule(1, PrioDefault, &recItem{r, "a"}, 0))
	require.NoError(t, e.Schedule(2, PrioDefault, stopper{e}, 0))
	require.NoError(t, e.Schedule(3, PrioDefault, &recItem{r, "b"}, 0))
	e.Run()
	require.True(t, e.Stopped())
	require.Equal(t, Tick(2), e.Now())
	require.Equal(t, 1, e.Pending())
	require.True(t, e.Step())
	require.False(t, e.Step())
	require.Equal(t, []string{"1:a:0", "3:b:0"}, r.log)
}

func TestSchedulingAllocatesNothingInSteadyState(t *testing.T) {
	p, err := NewPHOLD(1000, 10, US, 7)
	require.NoError(t, err)
	p.Run(200_000) // warm-up
	allocs := testing.AllocsPerRun(5, func() { p.Run(100_000) })
	require.Zero(t, allocs, "PHOLD steady state must not allocate")
}

func TestPHOLDIsDeterministic(t *testing.T) {
	run := func() []uint64 {
		p, err := NewPHOLD(100, 10, US, 42)
		require.NoError(t, err)
		p.Run(100_000)
		return append(p.Handled(), uint64(p.Engine().Now()))
	}
	require.Equal(t, run(), run())
}
func TestInEventIsTrueOnlyInsideAHandler(t *testing.T) {
	e := NewEngine()
	require.False(t, e.InEvent())
	var inside bool
	e.After(5, PrioDefault, HandlerFunc(func(Tick, uint64) { inside = e.InEvent() }), 0)
	e.Run()
	require.True(t, inside)
	require.False(t, e.InEvent())
}

// Run ends at the latest time an event was scheduled or reserved for: a
// reserved event never scheduled ran too, doing nothing.
func TestRunEndsAtTheLatestReservedOrScheduledTime(t *testing.T) {
	e := NewEngine()
	e.Reserve(50, PrioTick)
	e.After(10, PrioDefault, HandlerFunc(func(Tick, uint64) {}), 0)
	e.Run()
	require.Equal(t, Tick(50), e.Now())
	e.After(100, PrioDefault, HandlerFunc(func(Tick, uint64) {}), 0)
	e.Run()
	require.Equal(t, Tick(150), e.Now())
}

// A handler that panics leaves the engine outside any handler: the caller
// that recovers can run it again.
func TestInEventIsFalseAfterAHandlerPanics(t *testing.T) {
	e := NewEngine()
	e.After(1, PrioDefault, HandlerFunc(func(Tick, uint64) { panic("boom") }), 0)
	ran := false
	e.After(2, PrioDefault, HandlerFunc(func(Tick, uint64) { ran = true }), 0)
	require.PanicsWithValue(t, "boom", func() { e.Run() })
	require.False(t, e.InEvent())
	e.Run()
	require.True(t, ran)
}

// The sequence numbers are guarded once per event, not at each placement:
// a run whose events bring seq to seqSafe panics after the event that did,
// and a run started there panics before its first event, long before a
// sequence number could spill into a key's priority bits.
func TestSequenceOverflowPanicsBeforeAnyKeyIsWrong(t *testing.T) {
	e := NewEngine()
	e.seq = seqSafe - 4
	var ran []Tick
	h := HandlerFunc(func(now Tick, _ uint64) {
		ran = append(ran, now)
		e.After(1, PrioDefault, HandlerFunc(func(Tick, uint64) {}), 0)
	})
	e.After(1, PrioDefault, h, 0) // seq at seqSafe-3
	e.After(2, PrioDefault, h, 0) // seqSafe-2
	e.After(3, PrioDefault, h, 0) // seqSafe-1; never runs
	require.PanicsWithValue(t, errSeqOverflow, func() { e.Run() })
	require.Equal(t, []Tick{1}, ran, "the event that reached seqSafe is the last to run")
	require.False(t, e.InEvent())
	require.Less(t, e.seq, uint64(1<<seqBits-1))
	require.PanicsWithValue(t, errSeqOverflow, func() { e.Run() }, "a run starting past seqSafe")
	require.PanicsWithValue(t, errSeqOverflow, func() { e.Step() })
	require.Equal(t, []Tick{1}, ran)
}

// Step and Stop end a run by lowering the bound dispatch tests seq against
// after each event; the next run raises it again: Step runs one event, and
// a Run after a Stop runs to the end.
func TestStepAndStopLeaveTheNextRunUnbounded(t *testing.T) {
	e := NewEngine()
	n := 0
	for i := range 5 {
		e.After(Tick(i+1), PrioDefault, HandlerFunc(func(Tick, uint64) { n++ }), 0)
	}
	require.True(t, e.Step())
	require.Equal(t, 1, n)
	e.Stop()
	e.Run()
	require.False(t, e.Stopped())
	require.Equal(t, 5, n)
}

// windowModel is a handler that schedules more events on its engine, some
// near the ring's window edge (ringSlots slots ahead) and beyond, so that
// events go to far and come back while dispatch leaves the window's start
// behind within its bitmap word.
type windowModel struct {
	eng *Engine
	rng *rand.Rand
	log []string
	n   int
	far int // the most events far held at once (engine's own queue)
}

func (m *windowModel) Handle(now Tick, arg uint64) {
	m.log = append(m.log, fmt.Sprintf("%d:%d", now, arg))
	m.far = max(m.far, len(m.eng.q.small.far))
	edge := Tick(ringSlots) << ringShift
	for k := 1 + m.rng.IntN(2); k > 0 && m.n < 20_000; k-- {
		m.n++
		var d Tick
		switch m.rng.IntN(4) {
		case 0: // around the window's edge
			d = edge - 80<<ringShift + Tick(m.rng.IntN(160<<ringShift))
		case 1: // beyond it
			d = edge + Tick(m.rng.IntN(int(edge)))
		default: // within a few slots, ties included
			d = Tick(m.rng.IntN(3 << ringShift))
		}
		m.eng.After(d, Priority(m.rng.IntN(4)*10), m, uint64(m.n))
	}
}

func (m *windowModel) run() []string {
	for i := range 8 {
		m.eng.After(Tick(i)<<ringShift, PrioTick, m, 0)
	}
	for m.eng.Pending() > 0 {
		m.eng.RunUntil(m.eng.Now() + 3*US)
		if m.rng.IntN(2) == 0 { // between slices, often before the window's start
			m.eng.After(Tick(m.rng.IntN(2<<ringShift)), PrioDefault, m, 0)
		}
	}
	return m.log
}

// Dispatch takes events in the reference order while events cross the
// ring's window edge, RunUntil bounds fall between them and events are
// scheduled between runs, before the window's start.
func TestDispatchAcrossTheWindowEdgeMatchesTheReference(t *testing.T) {
	seed := testSeed(t)
	gm := &windowModel{eng: NewEngine(), rng: Stream(seed, "window")}
	got := gm.run()
	require.Positive(t, gm.far, "no event went beyond the window")
	want := (&windowModel{eng: newEngineWith(&heap4Queue{}), rng: Stream(seed, "window")}).run()
	require.Greater(t, len(want), 20_000)
	if i := firstDiff(want, got); i >= 0 {
		t.Fatalf("dispatch differs from the reference at event %d: want %q, got %q", i, want[i], got[min(i, len(got)-1)])
	}
}
