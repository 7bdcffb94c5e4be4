package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The engine leaves out events that would do nothing (superseded ticks taken
// out of the queue, port arrivals at a component already due to tick, and
// what components reserve with Reserve) and promises that everything else
// runs in the same order at the same times. These tests run one random
// clocked model twice - on the engine, and on the engine over the reference
// heap, where nothing is left out - and require the same log of ticks,
// messages and plain events.

// skipModel is a random clocked model: components on two clocks, joined by
// ports of random capacity and latency, that on each tick pop, send, wake
// one another, wake themselves earlier than a pending tick (superseding
// it) or later, and schedule plain events. Every choice is drawn from the
// model's stream inside a tick or an event, so two runs with the same
// behaviour draw the same numbers.
type skipModel struct {
	eng   *Engine
	rng   *rand.Rand
	comps []*skipComp
	log   []string
	left  int // ticks still allowed
}

type skipComp struct {
	m     *skipModel
	id    int
	drv   *TickDriver
	in    []*Port[int]
	out   []*Port[int]
	sent  int
	ticks int
	// idleAt is the time of the tick asked for by WakeIdle: a tick then
	// only counts itself in idles.
	idleAt Tick
	idles  int
}

// IdleTick is the tick at idleAt, which only counts itself.
func (c *skipComp) IdleTick(at Tick) {
	if at != c.idleAt {
		panic(fmt.Sprintf("C%d: idle tick at %v, asked for at %v", c.id, at, c.idleAt))
	}
	c.idleAt = 0
	c.idles++
}

type skipEvent struct{ m *skipModel }

func (e skipEvent) Handle(now Tick, arg uint64) {
	m := e.m
	m.log = append(m.log, fmt.Sprintf("%d event %d", now, arg))
	if c := m.comps[int(arg)%len(m.comps)]; m.rng.IntN(2) == 0 {
		c.drv.Wake()
	}
}

func newSkipModel(eng *Engine, seed uint64) *skipModel {
	m := &skipModel{eng: eng, rng: Stream(seed, "skip-model"), left: 20_000}
	clocks := []ClockDomain{{Name: "A", Period: 1000}, {Name: "B", Period: 833}}
	for i := range 8 {
		c := &skipComp{m: m, id: i}
		c.drv = NewTickDriver(fmt.Sprintf("C%d", i), clocks[i%2], eng, c)
		m.comps = append(m.comps, c)
	}
	for i := range 12 {
		src, dst := m.comps[m.rng.IntN(8)], m.comps[m.rng.IntN(8)]
		p := MustNewPort[int](fmt.Sprintf("P%d", i), eng, 1+m.rng.IntN(4), Tick(m.rng.IntN(3))*src.drv.Clock().Period+Tick(m.rng.IntN(2)*7))
		p.Connect(src.drv, dst.drv)
		src.out = append(src.out, p)
		dst.in = append(dst.in, p)
	}
	return m
}

func (c *skipComp) Tick(now Tick) bool {
	switch {
	case c.idleAt == 0:
	case now == c.idleAt:
		c.IdleTick(now)
		return false
	case now > c.idleAt:
		c.idleAt = 0 // no tick then: a wake before it asked for an earlier one
	}
	m := c.m
	c.ticks++
	m.log = append(m.log, fmt.Sprintf("%d tick C%d", now, c.id))
	if m.left--; m.left <= 0 {
		return false
	}
	for _, p := range c.in {
		if v, ok := p.Pop(); ok {
			m.log = append(m.log, fmt.Sprintf("%d C%d got %d from %s", now, c.id, v, p.Name()))
		}
	}
	if len(c.out) > 0 && m.rng.IntN(3) > 0 {
		if p := c.out[m.rng.IntN(len(c.out))]; p.CanSend() {
			c.sent++
			if err := p.Send(c.id*1_000_000 + c.sent); err != nil {
				panic(err)
			}
		}
	}
	period := c.drv.Clock().Period
	switch m.rng.IntN(8) {
	case 0, 5:
		m.comps[m.rng.IntN(len(m.comps))].drv.Wake()
	case 1: // a late wake, then an earlier one that supersedes it
		c.drv.WakeAt(now + Tick(3+m.rng.IntN(6))*period)
		c.drv.WakeAt(now + Tick(1+m.rng.IntN(2))*period)
	case 2:
		m.eng.After(Tick(m.rng.IntN(5000)), Priority(m.rng.IntN(5)*10), skipEvent{m}, uint64(m.rng.IntN(100)))
	case 3:
		c.drv.WakeAt(now + Tick(m.rng.IntN(40))*period)
	case 4:
		other := m.comps[m.rng.IntN(len(m.comps))].drv
		other.WakeAt(now + Tick(m.rng.IntN(4))*other.Clock().Period)
	case 6: // a tick that will only count itself unless woken before
		if c.idleAt == 0 {
			c.idleAt = now + Tick(1+m.rng.IntN(3))*period
			c.drv.WakeIdle(c.idleAt)
		}
	}
	return m.rng.IntN(3) > 0
}

// run starts every component and runs the model to the end, in slices like
// the run loop's, and returns its log and the time it ended at.
func (m *skipModel) run() ([]string, Tick) {
	for _, c := range m.comps {
		c.drv.Wake()
	}
	for m.eng.Pending() > 0 && m.eng.Now() < 10*MS {
		m.eng.RunUntil(m.eng.Now() + 7*US)
	}
	m.eng.Run()
	return m.log, m.eng.Now()
}

func TestLeftOutEventsChangeNothingElse(t *testing.T) {
	seed := testSeed(t)
	for r := range 10 {
		s := seed + uint64(r)
		eng := NewEngine()
		gm := newSkipModel(eng, s)
		got, gotEnd := gm.run()
		ref := newEngineWith(&heap4Queue{})
		wm := newSkipModel(ref, s)
		want, wantEnd := wm.run()
		if i := firstDiff(want, got); i >= 0 {
			t.Fatalf("round %d (seed %d): the run differs from the one that leaves nothing out at line %d:\nwant %q\ngot  %q", r, s,
				i, want[max(0, i-8):min(len(want), i+3)], got[max(0, i-8):min(len(got), i+3)])
		}
		require.Equal(t, wantEnd, gotEnd, "round %d: the run ends at another time", r)
		require.Equal(t, wm.idles(), gm.idles(), "round %d: idle ticks", r)
		require.Equal(t, wm.driverTicks(), gm.driverTicks(), "round %d: ticks per driver", r)
		require.Less(t, eng.Executed(), ref.Executed(), "round %d: nothing was left out", r)
	}
}

// idles is the number of idle ticks run, once every driver has settled.
func (m *skipModel) idles() int {
	n := 0
	for _, c := range m.comps {
		c.drv.Settle()
		n += c.idles
	}
	return n
}

// driverTicks is the ticks every driver ran, reserved ones included.
func (m *skipModel) driverTicks() []uint64 {
	var out []uint64
	for _, c := range m.comps {
		out = append(out, c.drv.Ticks())
	}
	return out
}

// firstDiff is the first index where a and b differ, or -1.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
