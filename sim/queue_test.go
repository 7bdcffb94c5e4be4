package sim

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// refEvent is the sorted reference's entry.
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

// delayGen draws the delays of one phase of a differential test: ties with
// now, near times on a clock grid, spread-out times and far-future ones, in
// proportions that change from phase to phase.
type delayGen struct {
	rng    *rand.Rand
	spread Tick
	ties   int // out of 16
	grid   int // out of 16
	far    int // out of 16
}

func newDelayGen(rng *rand.Rand) delayGen {
	return delayGen{
		rng:    rng,
		spread: []Tick{1, 10, 1000, US, MS}[rng.IntN(5)],
		ties:   rng.IntN(6),
		grid:   rng.IntN(8),
		far:    rng.IntN(3),
	}
}

func (g delayGen) next() Tick {
	r := g.rng.IntN(16)
	switch {
	case r < g.ties:
		return 0
	case r < g.ties+g.grid:
		return Tick(g.rng.IntN(4)) * g.spread
	case r < g.ties+g.grid+g.far:
		return Tick(g.rng.Uint64N(uint64(g.spread)*1000 + 1))
	}
	return Tick(g.rng.Uint64N(uint64(g.spread) + 1))
}

// TestQueueMatchesSortedReference drives the engine and a sorted slice with
// the same seeded schedule and requires the same dispatch order. Each round
// takes the population above calendarOn (calendar mode) and below
// calendarOff (back to heap mode) and back up, with bursts, ties under mixed
// priorities, clock-grid times, far-future events and interleaved dispatch.
func TestQueueMatchesSortedReference(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "queue-diff")
	sawCalendar, sawBack := false, false
	for round := 0; round < 6; round++ {
		e := NewEngine()
		q := &e.q
		l := &orderLog{}
		var ref []refEvent
		var want []int
		id := 0
		targets := []int{calendarOn + 1 + rng.IntN(calendarOn/2), rng.IntN(calendarOff), calendarOn + rng.IntN(calendarOn/2), rng.IntN(8)}
		for _, target := range targets {
			g := newDelayGen(rng)
			for steps := 0; len(ref) != target || steps < 500; steps++ {
				push, pop := rng.IntN(4), rng.IntN(4)
				if len(ref) < target {
					push += rng.IntN(16)
				} else if len(ref) > target {
					pop += rng.IntN(16)
				}
				for k := 0; k < push; k++ {
					d, p := g.next(), Priority(rng.IntN(4)*10)
					e.After(d, p, &orderItem{l, id}, uint64(id))
					ref = insertRef(ref, refEvent{at: e.Now() + d, prio: p, seq: id})
					id++
				}
				for k := min(pop, len(ref)); k > 0; k-- {
					want = append(want, ref[0].seq)
					ref = ref[1:]
					require.True(t, e.Step())
				}
				sawCalendar = sawCalendar || q.calendarMode
				sawBack = sawBack || (sawCalendar && !q.calendarMode)
			}
		}
		for _, r := range ref {
			want = append(want, r.seq)
		}
		e.Run()
		require.Equal(t, want, l.got, "round %d: dispatch order differs from the sorted reference", round)
	}
	require.True(t, sawCalendar, "the schedule never put the queue in calendar mode")
	require.True(t, sawBack, "the schedule never brought the queue back to heap mode")
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

// TestQueueMatchesReferenceHeapThroughRingChanges drives the queue and the
// reference 4-ary heap (checked against the sorted reference by
// TestReferenceHeapMatchesSortedReference) with populations large enough to
// grow and shrink the calendar's ring, phases whose event spacing differs by
// orders of magnitude (the window width must be re-measured), bursts of
// thousands of events on one tick, and events near the end of the time axis.
// Every dispatch and every peek must agree.
func TestQueueMatchesReferenceHeapThroughRingChanges(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "queue-ring")
	q, ref := newEventQueue(), &heap4Queue{}
	var now Tick
	var seq uint64
	var arg uint64
	push := func(d Tick, p Priority) {
		seq++
		arg++
		at := now + min(d, MaxTick-now)
		ev := event{at: at, ord: uint64(p)<<seqBits | seq, h: nopHandler{}, arg: arg}
		q.push(ev)
		ref.push(ev)
	}
	pop := func() {
		if w, g := ref.peek(), q.peek(); w != g {
			t.Fatalf("after %d pushes: peek %v, reference %v", seq, g, w)
		}
		want, got := ref.pop(), q.pop()
		if want.at != got.at || want.ord != got.ord || want.arg != got.arg {
			t.Fatalf("after %d pushes: dispatched (%v, %x, %d), reference (%v, %x, %d)", seq, got.at, got.ord, got.arg, want.at, want.ord, want.arg)
		}
		now = got.at
	}
	ringSizes, prevRing := map[int]bool{}, 0
	sawShrink, sawBack, shifts := false, false, map[uint]bool{}
	// The populations scale with the window (the ring doubles at
	// bucketFillMax = 2*windowTarget entries per bucket): the first grows the
	// ring twice, the next ones shrink it, go back to heap mode and grow again.
	k := max(1, windowTarget/1024)
	for _, target := range []int{70_000 * k, 20_000 * k, 3_000 * k, 100, 40_000 * k, 0} {
		g := newDelayGen(rng)
		for steps := 0; q.Len() != target || steps < 10_000; steps++ {
			nPush, nPop := rng.IntN(3), rng.IntN(3)
			if q.Len() < target {
				nPush += rng.IntN(64)
			} else if q.Len() > target {
				nPop += rng.IntN(64)
			}
			switch r := rng.IntN(10_000); {
			case r == 0: // a burst of events on one tick, mixed priorities
				d := g.next()
				for k := rng.IntN(4000); k > 0; k-- {
					push(d, Priority(rng.IntN(8)*10))
				}
			case r == 1: // an event near the end of time
				push(MaxTick-now-Tick(rng.IntN(1000)), PrioDefault)
			}
			for k := 0; k < nPush; k++ {
				push(g.next(), Priority(rng.IntN(4)*10))
			}
			for k := min(nPop, q.Len()); k > 0; k-- {
				pop()
			}
			if q.calendarMode {
				nb := len(q.cal.buckets)
				sawShrink = sawShrink || nb < prevRing
				ringSizes[nb], prevRing = true, nb
				shifts[q.cal.shift] = true
			} else {
				sawBack = sawBack || len(ringSizes) > 0
			}
		}
	}
	require.Zero(t, ref.Len())
	require.Greater(t, len(ringSizes), 2, "the ring never grew twice")
	require.True(t, sawShrink, "the ring never shrank")
	require.True(t, sawBack, "the queue never went back to heap mode")
	require.Greater(t, len(shifts), 1, "the window width was never re-measured")
}

// TestReferenceHeapMatchesSortedReference checks the reference heap that the
// larger differential test and the benchmarks compare against.
func TestReferenceHeapMatchesSortedReference(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "heap4-diff")
	q := &heap4Queue{}
	var ref []refEvent
	var now Tick
	g := newDelayGen(rng)
	for s := 0; s < 20_000; s++ {
		for k := rng.IntN(4); k > 0; k-- {
			d, p := g.next(), Priority(rng.IntN(4)*10)
			q.push(event{at: now + d, ord: uint64(p)<<seqBits | uint64(s*8+k), arg: uint64(s*8 + k)})
			ref = insertRef(ref, refEvent{at: now + d, prio: p, seq: s*8 + k})
		}
		for k := min(rng.IntN(4), len(ref)); k > 0; k-- {
			ev := q.pop()
			require.Equal(t, uint64(ref[0].seq), ev.arg)
			now = ev.at
			ref = ref[1:]
		}
	}
}

// TestWindowSortOrdersTiesWhateverTheirArrivalOrder sorts windows through
// each of windowRun's paths: spread-out times, many entries on a few ticks
// in scheduling order (the priority pass) and in scrambled order (the
// comparison sort), and requires (time, priority, sequence) order.
func TestWindowSortOrdersTiesWhateverTheirArrivalOrder(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "window-sort")
	for _, c := range []struct {
		name     string
		ticks    int
		scramble bool
	}{{"spread", 1 << 20, false}, {"ties", 3, false}, {"ties-scrambled", 3, true}} {
		const shift = 12
		start := Tick(rng.Uint64N(1<<40)) << shift
		src := make([]event, 5000)
		for i := range src {
			at := start + Tick(rng.IntN(c.ticks))*(1<<shift)/Tick(c.ticks)
			src[i] = event{at: at, ord: uint64(rng.IntN(8)*10)<<seqBits | uint64(i+1)}
		}
		if c.scramble {
			rng.Shuffle(len(src), func(i, j int) { src[i], src[j] = src[j], src[i] })
		}
		want := slices.Clone(src)
		slices.SortFunc(want, func(a, b event) int {
			if a.less(&b) {
				return -1
			}
			return 1
		})
		var r windowRun
		r.fill(src, start, shift)
		require.Equal(t, want, r.ev, c.name)
	}
}

// TestRingModeMatchesReferenceAcrossModeChanges drives the queue around the
// small populations of ring mode and across its bounds (a crowded slot
// above ringCrowd and ringOn up to heap mode, ringOff back) against the
// reference 4-ary heap, with events on the same slot out of order (the slot
// list's insertion), beyond the window (the far heap), and earlier than the
// window's start after a peek moved it (the rewind): every dispatch and
// every peek must agree.
func TestRingModeMatchesReferenceAcrossModeChanges(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "queue-ring-mode")
	q, ref := newEventQueue(), &heap4Queue{}
	var now Tick
	var seq uint64
	toHeap, toRing, linked, far, rewound, crowdedOut, wide := 0, 0, 0, 0, 0, 0, 0
	// Two phases draw their delays so as to reach both ways out of ring
	// mode whatever the seed: above ringCrowd into a few slots under mixed
	// priorities (crowded), and spread over a microsecond up to ringOn.
	crowd := delayGen{rng: rng, spread: 1, ties: 4, grid: 8}
	spread := delayGen{rng: rng, spread: US}
	phases := []struct {
		target int
		g      *delayGen
	}{{4, nil}, {ringCrowd + 20, &crowd}, {2, nil}, {ringOn + 20, nil}, {2, nil}, {ringOn - 1, &spread}, {ringOn * 3, nil}, {0, nil}, {40, nil}, {0, nil}}
	for _, ph := range phases {
		target, g := ph.target, newDelayGen(rng)
		if ph.g != nil {
			g = *ph.g
		}
		for steps := 0; q.Len() != target || steps < 3000; steps++ {
			nPush, nPop := rng.IntN(3), rng.IntN(3)
			if q.Len() < target {
				nPush += rng.IntN(6)
			} else if q.Len() > target {
				nPop += rng.IntN(6)
			}
			if q.Len() > 0 && rng.IntN(4) == 0 {
				q.peek() // as RunUntil does before time moves to its bound: the window may move on
			}
			for k := 0; k < nPush; k++ {
				seq++
				d := g.next()
				if rng.IntN(32) == 0 {
					d += Tick(ringSlots) << ringShift // past the window whatever the phase's spread
				}
				ev := event{at: now + d, ord: uint64(rng.IntN(4)*10)<<seqBits | seq, arg: seq}
				if r := &q.small; q.ringMode() {
					s := uint64(ev.at) >> ringShift
					switch {
					case s < r.cur:
						rewound++
					case s-r.cur >= ringSlots:
						far++
					case r.tail[s&(ringSlots-1)] != 0 && before(&r.nodes[r.tail[s&(ringSlots-1)]].k, &qkey{ev.at, ev.ord}) == 0:
						linked++
					}
				}
				was := q.ringMode()
				q.push(ev)
				ref.push(ev)
				if was && !q.ringMode() {
					toHeap++
					if q.Len() <= ringOn {
						crowdedOut++
					}
				}
				if q.ringMode() && q.Len() > ringCrowd {
					wide++
				}
			}
			for k := min(nPop, q.Len()); k > 0; k-- {
				require.Equal(t, ref.peek(), q.peek())
				was := q.ringMode()
				want, got := ref.pop(), q.pop()
				require.Equal(t, want.arg, got.arg, "after %d pushes", seq)
				now = got.at
				if !was && q.ringMode() {
					toRing++
				}
			}
		}
	}
	require.Zero(t, ref.Len())
	require.Positive(t, toHeap, "the queue never left ring mode")
	require.Positive(t, toRing, "the queue never came back to ring mode")
	require.Positive(t, linked, "no event was linked into a slot ahead of its tail")
	require.Positive(t, far, "no event went beyond the window")
	require.Positive(t, rewound, "the window never moved back")
	require.Positive(t, crowdedOut, "no crowded slot ended ring mode below ringOn events")
	require.Positive(t, wide, "ring mode never held more than ringCrowd events")
}

// Above ringCrowd events, ring mode lasts while they spread over many
// slots, up to ringOn: one event per slot never walks a list.
func TestRingModeHoldsSpreadEventsUpToRingOn(t *testing.T) {
	q := newEventQueue()
	for i := 1; i <= ringOn; i++ {
		q.push(event{at: Tick(i) << ringShift, ord: uint64(i), arg: uint64(i)})
		require.True(t, q.ringMode(), "left ring mode at %d spread events", i)
	}
	q.push(event{at: 1, ord: ringOn + 1, arg: 0})
	require.False(t, q.ringMode(), "the queue stayed in ring mode above ringOn events")
	for i := 0; i <= ringOn; i++ {
		require.Equal(t, uint64(i), q.pop().arg)
	}
}

// A new event linked further than ringWalkMax into its slot's list ends
// ring mode once more than ringCrowd events are pending, and not before:
// below ringCrowd the ring is the fastest however crowded. Its order
// survives the move.
func TestCrowdedSlotEndsRingModeOnlyAboveRingCrowd(t *testing.T) {
	for _, via := range []string{"push", "engine"} {
		t.Run(via, func(t *testing.T) {
			e := NewEngine()
			l := &orderLog{}
			x := &orderItem{l: l}
			// Each new event at 5 ns goes after those of priority 0 and
			// before the one of priority 2: a walk as long as the list.
			add := func(prio, seq int) {
				k := Key{5 * NS, uint64(prio)<<seqBits | uint64(seq)}
				if via == "push" {
					e.q.n++
					e.q.ringInsert(k, x, uint64(seq))
					return
				}
				e.schedule(k, x, uint64(seq))
			}
			add(2, 0)
			seq := 1
			for ; seq <= ringCrowd-1; seq++ {
				add(0, seq)
				require.True(t, e.q.ringMode(), "a crowded slot ended ring mode at %d events", e.q.n)
			}
			add(0, seq)
			require.False(t, e.q.ringMode(), "a crowded slot kept ring mode at %d events", e.q.n)
			e.Run()
			want := make([]int, 0, seq+1)
			for i := 1; i <= seq; i++ {
				want = append(want, i)
			}
			require.Equal(t, append(want, 0), l.got)
		})
	}
}

// Ring mode holds up to ringOn+1 events at once, all of them in one slot
// at worst, each new one going to the head of its slot's list: the node
// pool holds them all and they leave in order.
func TestRingModeHoldsItsMostEventsInOneSlot(t *testing.T) {
	q := newEventQueue()
	for i := ringOn + 1; i > 0; i-- {
		require.True(t, q.ringMode())
		q.push(event{at: 5 * NS, ord: uint64(i), arg: uint64(i)})
	}
	require.False(t, q.ringMode(), "the queue left ring mode above ringOn events")
	for i := 1; i <= ringOn+1; i++ {
		require.Equal(t, uint64(i), q.pop().arg)
	}
	require.Zero(t, q.Len())
}

// A slot's list that empties keeps its tail (only the head and the bit
// are cleared): events scheduled into it again, after, before and between
// those already there, and one taken out again, still leave in order.
func TestEmptiedSlotTakesEventsInOrderAgain(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	x := &recItem{r, "x"}
	for i := range 3 {
		require.NoError(t, e.Schedule(5000, PrioTick, x, uint64(i)))
	}
	e.RunUntil(5000)
	require.Len(t, r.log, 3)
	r.log = nil
	// 5100 is in the slot of 5000 (1024 ps slots): its tail is stale.
	require.NoError(t, e.Schedule(5100, PrioTick, x, 10))
	require.NoError(t, e.Schedule(5100, PrioDefault, x, 11)) // after the tail
	require.NoError(t, e.Schedule(5100, PrioDeliver, x, 12)) // before the head
	require.NoError(t, e.Schedule(5050, PrioDefault, x, 13)) // between, earlier time
	h := e.pushTracked(e.place(5100, PrioStats), x, 14)      // the tail, taken out
	require.True(t, e.remove(h, 5100))
	require.NoError(t, e.Schedule(5100, PrioStats, x, 15)) // after the new tail
	e.Run()
	require.Equal(t, []string{"5050:x:13", "5100:x:12", "5100:x:10", "5100:x:11", "5100:x:15"}, r.log)
}
