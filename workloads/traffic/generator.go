package traffic

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// generator runs one Generator: it starts operations through its kind's
// Source, closed or open loop, and measures the ones that arrive after
// warm-up. Every random draw comes from its own streams,
// sim.Stream(seed, "gen.<name>.arrivals") and "gen.<name>.ops", so adding a
// generator never changes another's.
type generator struct {
	m       *Model
	cfg     *workloads.Generator
	src     Source
	use     meterUse // the meters it can be bound by
	eng     *sim.Engine
	open    bool
	arrRNG  *rand.Rand
	gapPS   float64 // mean arrival gap
	nextArr float64 // next arrival time, ps (exact accumulation for fixed arrivals)
	stopArr sim.Tick

	slots   []genSlot
	streams []genStream
	rr      int // next stream for an open-loop arrival
	blocked bool
	err     error

	warmEnd sim.Tick
	target  uint64 // measured operations to complete (0: no limit)
	done    bool
	endAt   sim.Tick

	measured uint64 // measured operations completed, success or failure
	// windowDone counts every completion inside the measured window,
	// whenever its operation arrived, and windowFailed the failed ones
	// among them: throughput is successful completions per unit of time.
	// Latency samples, by contrast, are the operations that arrived after
	// warm-up, so no warm-up queueing leaks into them.
	windowDone   uint64
	windowFailed uint64
	windowBytes  uint64
	windowUnits  uint64
	firstFail    string   // the run's first failure reason ("" before one)
	firstFailAt  sim.Tick // and when it completed
	// backlogAtWarm is the open-loop backlog at the end of warm-up: one
	// longer at the end of the window means arrivals outran completions.
	backlogAtWarm int
	rnrAtWarm     sim.Tick // its QPs' time held by RNR NAKs at the end of warm-up
	failed        uint64   // measured operations that failed
	dropped       uint64   // arrivals refused by a full backlog (open loop)
	bytes         uint64   // bytes of measured successful operations
	lat           sim.Histogram
	failures      map[string]uint64

	tracer sim.Tracer
	tracks []string
	series *genSeries
}

type genSlot struct {
	op      Op
	busy    bool
	arrived sim.Tick
	started sim.Tick
}

type genStream struct {
	free     []uint32 // free slot indices
	inflight int
	backlog  []sim.Tick // open loop: arrival times waiting for a slot
	head     int
}

func (s *genStream) waiting() int { return len(s.backlog) - s.head }

var (
	_ Done        = (*generator)(nil)
	_ sim.Handler = arrivalHandler{}
)

func newGenerator(m *Model, cfg *workloads.Generator, seed uint64, warmEnd sim.Tick, target uint64, tr sim.Tracer) (*generator, error) {
	src, err := newSource(m, cfg, sim.Stream(seed, "gen."+cfg.Name+".ops"))
	if err != nil {
		return nil, fmt.Errorf("generator %q: %w", cfg.Name, err)
	}
	g := &generator{m: m, cfg: cfg, src: src, use: newMeterUse(m, src), eng: m.Env.Engine, warmEnd: warmEnd, target: target,
		failures: map[string]uint64{}, tracer: tr}
	n := cfg.Streams * cfg.Outstanding
	g.slots = make([]genSlot, n)
	g.streams = make([]genStream, cfg.Streams)
	for s := range g.streams {
		st := &g.streams[s]
		for j := cfg.Outstanding - 1; j >= 0; j-- {
			st.free = append(st.free, uint32(s*cfg.Outstanding+j))
		}
	}
	for i := range g.slots {
		g.slots[i].op = Op{Index: uint64(i), Stream: i / cfg.Outstanding}
	}
	if tr != nil {
		g.tracks = make([]string, n)
		for i := range g.tracks {
			g.tracks[i] = fmt.Sprintf("Generator %s/stream %d slot %d", cfg.Name, i/cfg.Outstanding, i%cfg.Outstanding)
		}
	}
	if a := cfg.Arrival; a != nil {
		g.open = true
		g.arrRNG = sim.Stream(seed, "gen."+cfg.Name+".arrivals")
		g.gapPS = 1e6 / a.RateMops
	}
	return g, nil
}

// start begins the generator at time now (the end of setup).
func (g *generator) start(now sim.Tick) {
	if g.open {
		g.scheduleArrival()
		return
	}
	g.fill(now)
}

type arrivalHandler struct{ g *generator }

func (h arrivalHandler) Handle(now sim.Tick, _ uint64) { h.g.arrive(now) }

func (g *generator) scheduleArrival() {
	gap := g.gapPS
	if g.cfg.Arrival.Process == "poisson" {
		gap = g.arrRNG.ExpFloat64() * g.gapPS
	}
	g.nextArr += gap
	at := sim.Tick(g.nextArr + 0.5)
	if g.done || (g.stopArr != 0 && at > g.stopArr) {
		return
	}
	if err := g.eng.Schedule(at, sim.PrioDefault, arrivalHandler{g}, 0); err != nil {
		g.fail(err)
	}
}

func (g *generator) arrive(now sim.Tick) {
	if g.done {
		return
	}
	s := g.rr
	g.rr = (g.rr + 1) % len(g.streams)
	st := &g.streams[s]
	if st.waiting() >= g.cfg.Arrival.BacklogMax {
		if now >= g.warmEnd {
			g.dropped++
		}
	} else {
		if st.head > 0 && st.head*2 >= len(st.backlog) {
			st.backlog = append(st.backlog[:0], st.backlog[st.head:]...)
			st.head = 0
		}
		st.backlog = append(st.backlog, now)
		if !g.blocked {
			g.startStream(now, s)
		}
	}
	g.scheduleArrival()
}

// fill starts what every stream can start, beginning after the stream that
// went last, until the model is busy.
func (g *generator) fill(now sim.Tick) {
	for i := 0; i < len(g.streams) && !g.blocked && !g.done && g.err == nil; i++ {
		g.startStream(now, i)
	}
}

func (g *generator) startStream(now sim.Tick, s int) {
	st := &g.streams[s]
	for st.inflight < g.cfg.Outstanding && !g.done && g.err == nil {
		arrived := now
		if g.open {
			if st.waiting() == 0 {
				return
			}
			arrived = st.backlog[st.head]
		}
		idx := st.free[len(st.free)-1]
		sl := &g.slots[idx]
		sl.op.Bytes, sl.op.Units = 0, 0
		if err := g.src.Start(now, &sl.op, g); err != nil {
			g.refused(err)
			return
		}
		st.free = st.free[:len(st.free)-1]
		st.inflight++
		sl.busy, sl.arrived, sl.started = true, arrived, now
		if g.open {
			st.head++
		}
	}
}

// refused is a source's refusal to start an operation: busy (the stream
// waits until the source kicks it) or an error that fails the generator.
func (g *generator) refused(err error) {
	if errors.Is(err, ErrBusy) {
		g.blocked = true
		return
	}
	g.fail(fmt.Errorf("generator %q: %w", g.cfg.Name, err))
}

func (g *generator) fail(err error) {
	if g.err == nil {
		g.err = err
	}
	g.eng.Stop()
}

// Handle is a successful completion of operation index.
func (g *generator) Handle(now sim.Tick, index uint64) { g.complete(now, index, "") }

// Fail is a failed completion of operation index.
func (g *generator) Fail(now sim.Tick, index uint64, reason string) {
	if reason == "" {
		reason = "failed"
	}
	g.complete(now, index, reason)
}

func (g *generator) complete(now sim.Tick, index uint64, reason string) {
	if index >= uint64(len(g.slots)) || !g.slots[index].busy {
		g.fail(fmt.Errorf("generator %q: completion of operation %d that is not in flight (kind %s)", g.cfg.Name, index, g.cfg.Kind))
		return
	}
	sl := &g.slots[index]
	sl.busy = false
	st := &g.streams[sl.op.Stream]
	st.inflight--
	st.free = append(st.free, uint32(index))
	if g.tracer != nil {
		g.trace(index, sl, reason, now)
	}
	if g.series != nil {
		g.series.record(now, now-sl.arrived, sl.op.Bytes, reason != "")
	}
	// The window's completions are those in (warm-up end, window end]: it
	// ends at a completion (the last measured one in an ops run; events at
	// the end of a duration run run), so it cannot start at one too.
	if reason != "" && g.firstFail == "" {
		g.firstFail, g.firstFailAt = reason, now
	}
	if now > g.warmEnd && !g.done {
		g.windowDone++
		if reason == "" {
			g.windowBytes += sl.op.Bytes
			g.windowUnits += sl.op.Units
		} else {
			g.windowFailed++
		}
	}
	if sl.arrived >= g.warmEnd && !g.done {
		g.measured++
		if reason != "" {
			g.failed++
			g.failures[reason]++
		} else {
			g.lat.Record(uint64(now - sl.arrived))
			g.bytes += sl.op.Bytes
		}
		if g.target > 0 && g.measured >= g.target {
			g.done = true
			g.endAt = now
			g.m.generatorDone(now)
		}
	}
	if !g.blocked {
		g.startStream(now, sl.op.Stream)
	}
	g.m.Kick()
}

// trace records operation index as a span from its start to now on its
// slot's track; an open-loop operation that waited in the backlog has a
// "backlog" phase from its arrival.
func (g *generator) trace(index uint64, sl *genSlot, reason string, now sim.Tick) {
	name, status := g.cfg.Kind, "ok"
	if reason != "" {
		name += " failed: " + reason
		status = reason
	}
	s := &sim.Span{Track: g.tracks[index], Name: name, Start: sl.arrived, End: now,
		Args: []sim.Arg{{Key: "generator", Value: g.cfg.Name}, {Key: "stream", Value: sl.op.Stream}, {Key: "slot", Value: index},
			{Key: "bytes", Value: sl.op.Bytes}, {Key: "status", Value: status}, {Key: "measured", Value: sl.arrived >= g.warmEnd}}}
	if sl.started > sl.arrived {
		s.Phases = []sim.Phase{{Name: "backlog", Start: sl.arrived, End: sl.started}, {Name: g.cfg.Kind, Start: sl.started, End: now}}
	}
	g.tracer.Span(s)
}

// failureCounts lists failure reasons sorted by name.
func (g *generator) failureCounts() []results.ReasonCount {
	out := make([]results.ReasonCount, 0, len(g.failures))
	for r, n := range g.failures {
		out = append(out, results.ReasonCount{Reason: r, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// backlog is the number of open-loop arrivals waiting for a slot.
func (g *generator) backlog() int {
	n := 0
	for i := range g.streams {
		n += g.streams[i].waiting()
	}
	return n
}

// inFlight is the number of operations started and not completed.
func (g *generator) inFlight() int {
	n := 0
	for i := range g.streams {
		n += g.streams[i].inflight
	}
	return n
}
