package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTickDriverEdgeForIsTheClocksNextEdgeAfterTheLastTick checks the
// edge a wake asks for, found without a division when it is the first
// edge after the last tick or the time is an edge, against its
// definition: the clock's next edge, strictly after the last tick. Times
// are near the last tick, on edges, just off them, and far after.
func TestTickDriverEdgeForIsTheClocksNextEdgeAfterTheLastTick(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	for _, period := range []Tick{1, 2, 3, 1000, 2048, 3333, 6400, 1<<40 + 1} {
		clk := ClockDomain{Name: "c", Period: period}
		d := NewTickDriver("d", clk, NewEngine(), nil)
		require.Equal(t, Tick(0), d.edgeFor(0), "before the first tick, 0 is an edge")
		for i := 0; i < 20000; i++ {
			if r.IntN(4) == 0 { // a tick on an edge
				d.lastTick = clk.NextEdge(Tick(r.Uint64N(1 << 50)))
			}
			var at Tick
			switch r.IntN(4) {
			case 0: // within a few periods of the last tick
				at = d.lastTick + Tick(r.Uint64N(uint64(4*period+1)))
			case 1: // an edge after it
				at = d.lastTick + Tick(r.Uint64N(1<<20)+1)*period
			case 2: // next to an edge after it
				at = d.lastTick + Tick(r.Uint64N(1<<20)+1)*period + Tick(r.IntN(3)) - 1
			default: // anywhere
				at = Tick(r.Uint64N(1 << 51))
			}
			want := max(clk.NextEdge(at), d.lastTick+period)
			require.Equal(t, want, d.edgeFor(at), "period %d, last tick %d, t %d, step %d", period, d.lastTick, at, i)
		}
	}
}

// TestTickDriverDueByIsPendingByTheArrivalsEdge checks the test a port
// arrival makes without finding its edge, that a tick is pending at or
// before the edge a wake at t asks for, against the clock's next edge.
func TestTickDriverDueByIsPendingByTheArrivalsEdge(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, period := range []Tick{1, 2, 3, 1000, 2048, 3333, 6400} {
		clk := ClockDomain{Name: "c", Period: period}
		d := NewTickDriver("d", clk, NewEngine(), nil)
		for i := 0; i < 20000; i++ {
			d.st = 0
			if r.IntN(8) != 0 {
				d.st = stPending
			}
			d.pendAt = Tick(r.Uint64N(1<<30)+3) * period // at below stays above 0
			at := d.pendAt + Tick(r.Uint64N(uint64(6*period+1))) - 3*period
			if r.IntN(4) == 0 {
				at = Tick(r.Uint64N(1 << 40))
			}
			want := d.st != stNone && d.pendAt <= clk.NextEdge(at)
			require.Equal(t, want, d.dueBy(at), "period %d, pending %v at %d, t %d", period, d.st != stNone, d.pendAt, at)
		}
	}
}

// TestEdgeTestIsDivisibility checks the division-free edge test against
// the remainder for periods odd, even and powers of two, at multiples,
// next to them and at the ends of the range.
func TestEdgeTestIsDivisibility(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	periods := []Tick{1, 2, 3, 4, 6, 7, 1000, 1024, 3333, 6400, 1<<63 - 1, 1 << 63, MaxTick}
	for i := 0; i < 200; i++ {
		periods = append(periods, Tick(r.Uint64N(1<<20)+1), Tick(r.Uint64()|1))
	}
	for _, p := range periods {
		e := newEdgeTest(p)
		check := func(at Tick) {
			require.Equal(t, at%p == 0, e.is(at), "period %d, t %d", p, at)
		}
		check(0)
		check(MaxTick)
		check(MaxTick - 1)
		for j := 0; j < 200; j++ {
			at := Tick(r.Uint64())
			check(at)
			m := at - at%p
			check(m)
			check(m + 1)
			check(m - 1)
		}
	}
}

// TestPortDropTakesThePeekedMessage checks that Drop removes the message
// Peek returned, returns its credit and wakes a sender refused while the
// port was full; and that a Drop on an empty port panics.
func TestPortDropTakesThePeekedMessage(t *testing.T) {
	eng := NewEngine()
	p := MustNewPort[int]("p", eng, 2, 0)
	src := &countWaker{}
	p.Connect(src, nil)
	require.NoError(t, p.Send(1))
	require.NoError(t, p.Send(2))
	require.False(t, p.CanSend())
	m, ok := p.Peek()
	require.True(t, ok)
	require.Equal(t, 1, m)
	p.Drop()
	require.Equal(t, 1, p.Len())
	require.Equal(t, 1, src.n, "the refused sender is woken")
	m, ok = p.Pop()
	require.True(t, ok)
	require.Equal(t, 2, m)
	require.Panics(t, p.Drop)
}

type countWaker struct{ n int }

func (w *countWaker) Wake() { w.n++ }
