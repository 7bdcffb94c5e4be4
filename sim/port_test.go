package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// producer sends numbered messages while the port has credits.
type producer struct {
	out   *Port[int]
	next  int
	limit int
	d     *TickDriver
	sent  []Tick
}

func (p *producer) Tick(now Tick) bool {
	progress := false
	for p.next < p.limit && p.out.CanSend() {
		if err := p.out.Send(p.next); err != nil {
			panic(err)
		}
		p.sent = append(p.sent, now)
		p.next++
		progress = true
	}
	return progress
}

func (p *producer) Wake() { p.d.Wake() }

// consumer pops at most one message per cycle.
type consumer struct {
	in   *Port[int]
	got  []int
	at   []Tick
	d    *TickDriver
	stop int // stop consuming after this many (0: never stop)
}

func (c *consumer) Tick(now Tick) bool {
	if c.stop > 0 && len(c.got) >= c.stop {
		return false
	}
	m, ok := c.in.Pop()
	if !ok {
		return false
	}
	c.got = append(c.got, m)
	c.at = append(c.at, now)
	return true
}

func (c *consumer) Wake() { c.d.Wake() }

func buildPair(t *testing.T, capacity int, latency Tick, limit int) (*Engine, *producer, *consumer, *Port[int]) {
	e := NewEngine()
	clk, err := NewClockDomain("clk", 1000)
	require.NoError(t, err)
	port, err := NewPort[int]("P", e, capacity, latency)
	require.NoError(t, err)
	p := &producer{out: port, limit: limit}
	c := &consumer{in: port}
	p.d = NewTickDriver("Prod", clk, e, p)
	c.d = NewTickDriver("Cons", clk, e, c)
	port.Connect(p, c)
	return e, p, c, port
}

func TestPortMessageVisibleOnlyAfterLatency(t *testing.T) {
	e, p, c, _ := buildPair(t, 4, 2500, 1)
	p.Wake()
	e.Run()
	require.Equal(t, []int{0}, c.got)
	require.Equal(t, Tick(0), p.sent[0])
	// Sent at 0, visible at 2500, consumed on the next consumer edge: 3000.
	require.Equal(t, Tick(3000), c.at[0])
}

func TestPortBackPressureStallsSenderAndCreditReturnWakesIt(t *testing.T) {
	e, p, c, port := buildPair(t, 2, 0, 10)
	c.stop = 1
	p.Wake()
	e.Run()
	// Capacity 2: one consumed, then two held, and the producer is blocked.
	require.Equal(t, 3, p.next, "producer must stop when credits run out")
	require.Equal(t, 2, port.Len())
	require.Positive(t, port.Refused)
	require.Zero(t, e.Pending(), "blocked components must not spin")

	c.stop = 0
	c.Wake()
	e.Run()
	require.Equal(t, 10, p.next, "freed credits must wake the producer")
	want := make([]int, 10)
	for i := range want {
		want[i] = i
	}
	require.Equal(t, want, c.got, "no message dropped or reordered")
	require.LessOrEqual(t, port.MaxDepth(), 2)
}

func TestPortSendWithoutCreditIsRefused(t *testing.T) {
	e := NewEngine()
	port, err := NewPort[int]("P", e, 1, 0)
	require.NoError(t, err)
	require.NoError(t, port.Send(1))
	require.Error(t, port.Send(2))
	require.Equal(t, 1, port.Len())
	_, err = NewPort[int]("bad", e, 0, 0)
	require.Error(t, err)
}

func TestPortPeekAtSeesWhatPeekSees(t *testing.T) {
	e := NewEngine()
	port, err := NewPort[int]("P", e, 2, 2500)
	require.NoError(t, err)
	_, ok := port.PeekAt(0)
	require.False(t, ok, "empty port")
	require.NoError(t, port.Send(7))
	_, ok = port.PeekAt(0)
	require.False(t, ok, "sent at 0, visible at 2500")
	e.RunUntil(2499)
	_, ok = port.PeekAt(e.Now())
	require.False(t, ok, "one picosecond before its latency has passed")
	e.RunUntil(2500)
	m, ok := port.PeekAt(e.Now())
	require.True(t, ok)
	require.Equal(t, 7, m)
	pm, pok := port.Peek()
	require.Equal(t, pok, ok)
	require.Equal(t, pm, m)
	require.Equal(t, 1, port.Len(), "PeekAt takes nothing")
}

// counterTicker makes progress n times, then idles.
type counterTicker struct{ left int }

func (c *counterTicker) Tick(Tick) bool {
	if c.left == 0 {
		return false
	}
	c.left--
	return true
}

func TestIdleComponentIsNotTicked(t *testing.T) {
	e := NewEngine()
	clk, _ := NewClockDomain("clk", 1000)
	ct := &counterTicker{left: 3}
	d := NewTickDriver("C", clk, e, ct)
	d.Wake()
	e.Run()
	// Three ticks with progress, one that finds nothing, then sleep.
	require.Equal(t, uint64(4), d.Ticks())
	require.Zero(t, e.Pending())
	e.RunUntil(1_000_000)
	require.Equal(t, uint64(4), d.Ticks(), "an idle component costs nothing")
}

func TestWakeIsDeduplicatedAndNeverTicksTwicePerEdge(t *testing.T) {
	e := NewEngine()
	clk, _ := NewClockDomain("clk", 1000)
	ct := &counterTicker{}
	d := NewTickDriver("C", clk, e, ct)
	require.NoError(t, e.Schedule(1500, PrioDefault, HandlerFunc(func(Tick, uint64) {
		d.Wake()
		d.Wake()
		d.Wake()
	}), 0))
	e.Run()
	require.Equal(t, uint64(1), d.Ticks(), "three wakes before an edge give one tick")
	require.Equal(t, Tick(2000), e.Now(), "woken at 1500, ticks on the next edge")
	// A wake on the edge the component just ticked on moves to the next edge.
	require.NoError(t, e.Schedule(2000, PrioDefault, HandlerFunc(func(Tick, uint64) { d.Wake() }), 0))
	e.Run()
	require.Equal(t, uint64(2), d.Ticks())
	require.Equal(t, Tick(3000), e.Now())
}

type nopWaker struct{ n int }

func (w *nopWaker) Wake() { w.n++ }

func TestPortSendWithLatencyAllocatesNothing(t *testing.T) {
	e := NewEngine()
	port, err := NewPort[int]("P", e, 4, 5*NS)
	require.NoError(t, err)
	w := &nopWaker{}
	port.Connect(nil, w)
	allocs := testing.AllocsPerRun(100, func() {
		require.NoError(t, port.Send(1))
		e.Run()
		_, ok := port.Pop()
		require.True(t, ok)
	})
	require.Zero(t, allocs)
	require.Equal(t, 101, w.n, "every arrival wakes the receiver")
}
