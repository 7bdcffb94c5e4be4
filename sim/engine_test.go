package sim

import (
	"errors"
	"fmt"
	"sort"
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
	r := &recorder{}
	a, b, c := &recItem{r, "a"}, &recItem{r, "b"}, &recItem{r, "c"}
	require.NoError(t, e.Schedule(100, PrioTick, a, 1))
	require.NoError(t, e.Schedule(100, PrioDeliver, b, 2))
	require.NoError(t, e.Schedule(100, PrioTick, c, 3))
	require.NoError(t, e.Schedule(50, PrioStats, a, 4))
	require.NoError(t, e.Schedule(100, PrioDeliver, a, 5))
	e.Run()
	require.Equal(t, []string{"50:a:4", "100:b:2", "100:a:5", "100:a:1", "100:c:3"}, r.log)
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

// refEvent is the reference model's entry: a sorted slice.
type refEvent struct {
	at   Tick
	prio Priority
	seq  int
}

type orderLog struct {
	got []int
}

type orderItem struct {
	l  *orderLog
	id int
}

func (o *orderItem) Handle(_ Tick, arg uint64) { o.l.got = append(o.l.got, int(arg)) }

// TestQueueMatchesSortedReference drives the engine's queue and a sorted
// slice with the same seeded schedule (bursts, far-future events, ties,
// interleaved dispatch, population swings that force re-sizing) and requires
// the same dispatch order.
func TestQueueMatchesSortedReference(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "queue-diff")
	for round := 0; round < 20; round++ {
		e := NewEngine()
		l := &orderLog{}
		var ref []refEvent
		id := 0
		spread := []Tick{1, 10, 1000, US, MS}[rng.IntN(5)]
		var want []int
		steps := 2000 + rng.IntN(8000)
		for s := 0; s < steps; s++ {
			// Push a burst, then pop some; the population rises and falls.
			burst := rng.IntN(8)
			if s%3000 < 1000 {
				burst += 4
			}
			for k := 0; k < burst; k++ {
				var d Tick
				switch rng.IntN(10) {
				case 0:
					d = 0 // ties with now
				case 1:
					d = Tick(rng.Uint64N(uint64(spread)*1000 + 1)) // far future
				default:
					d = Tick(rng.Uint64N(uint64(spread) + 1))
				}
				p := Priority(rng.IntN(4) * 10)
				it := &orderItem{l, id}
				e.After(d, p, it, uint64(id))
				ref = insertRef(ref, refEvent{at: e.Now() + d, prio: p, seq: id})
				id++
			}
			k := min(rng.IntN(10), len(ref))
			if k > 0 {
				for _, r := range ref[:k] {
					want = append(want, r.seq)
					require.True(t, e.Step())
				}
				ref = ref[k:]
			}
		}
		for _, r := range ref {
			want = append(want, r.seq)
		}
		e.Run()
		require.Equal(t, want, l.got, "round %d (spread %v): dispatch order differs from the sorted reference", round, spread)
	}
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

// insertRef keeps ref sorted by (time, priority, sequence).
func insertRef(ref []refEvent, r refEvent) []refEvent {
	i := sort.Search(len(ref), func(i int) bool {
		a := ref[i]
		if a.at != r.at {
			return a.at > r.at
		}
		if a.prio != r.prio {
			return a.prio > r.prio
		}
		return a.seq > r.seq
	})
	ref = append(ref, refEvent{})
	copy(ref[i+1:], ref[i:])
	ref[i] = r
	return ref
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
