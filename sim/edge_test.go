package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTickDriverNextEdgeIsTheClocksNextEdge checks the driver's edge
// search, which starts from the last edge it found, against the clock's
// division for times near it, across it, far before and far after it.
func TestTickDriverNextEdgeIsTheClocksNextEdge(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	for _, period := range []Tick{1, 2, 3, 1000, 3333} {
		clk := ClockDomain{Name: "c", Period: period}
		d := NewTickDriver("d", clk, NewEngine(), nil)
		var at Tick
		for i := 0; i < 20000; i++ {
			switch r.IntN(4) {
			case 0: // within a period or two of the last time
				at += Tick(r.Uint64N(uint64(2*period + 1)))
			case 1: // back a little
				at -= min(at, Tick(r.Uint64N(uint64(2*period+1))))
			case 2: // far after
				at += Tick(r.Uint64N(1 << 40))
			default: // anywhere before
				at = Tick(r.Uint64N(uint64(at) + 1))
			}
			require.Equal(t, clk.NextEdge(at), d.nextEdge(at), "period %d, t %d, step %d", period, at, i)
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
