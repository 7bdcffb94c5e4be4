package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// RunOptions control a run from outside the simulation. None of them
// changes simulated results: the same file and seed give the same Result.
type RunOptions struct {
	// Tracer receives one span per operation of the first point (issue to
	// completion, on a track per generator, stream and slot). nil: none.
	Tracer sim.Tracer
	// Interrupted is polled between slices of simulated time; when it
	// returns true the run stops there and the Result is marked partial.
	Interrupted func() bool
	// Progress is told the fraction done (0..1) between slices.
	Progress func(done float64)
	// slice, when not 0, makes every slice that long (the tests' check
	// that where slices end changes no result).
	slice sim.Tick
}

func usToTick(us float64) sim.Tick { return sim.FromNanoseconds(us * 1000) }

// RunFile runs every point of a loaded file in order. An interrupt stops
// the point in progress and skips the rest; the Result is then partial.
func RunFile(f *workloads.File, opts RunOptions) (*results.Result, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("workloads: %s: nothing to run", f.Path)
	}
	w0 := f.Points[0]
	res := &results.Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: f.Sweep}
	n := float64(len(f.Points))
	for i, w := range f.Points {
		o := opts
		if i > 0 {
			o.Tracer = nil
		}
		if opts.Progress != nil {
			base := float64(i)
			o.Progress = func(p float64) { opts.Progress((base + p) / n) }
		}
		pr, err := RunPoint(w, o)
		if err != nil {
			if len(f.Points) > 1 {
				return nil, fmt.Errorf("point %d (%s): %w", i, workloads.Label(w.Point), err)
			}
			return nil, err
		}
		res.Points = append(res.Points, *pr)
		if pr.Partial {
			res.Partial = true
		}
		if pr.StopReason == "interrupted" {
			break
		}
	}
	return res, nil
}

// pointRun is one point in progress: its model, its times (end of setup,
// end of warm-up, end of the run) and the snapshot taken at the end of
// warm-up.
type pointRun struct {
	w        *workloads.Workload
	m        *Model
	t0       sim.Tick
	warm     sim.Tick
	end      sim.Tick
	warmSnap snapshot
	sampler  *traceSampler // counter tracks of a traced point
	clock    seriesClock   // intervals of the point's time series
	meterErr error         // the meters' window could not be set
}

// seriesInterval is the width of one interval of the point's time series
// and of the meters' window: run.timeseries_interval_us, or a hundredth of
// the longest measured window (at least a nanosecond).
func (r *pointRun) seriesInterval() sim.Tick {
	if iv := r.w.Run.TimeseriesIntervalUS; iv > 0 {
		return max(usToTick(iv), 1)
	}
	return max((r.end-r.warm+SeriesIntervals-1)/SeriesIntervals, sim.NS)
}

// closeMeters ends the meters' window at tEnd (earlier than planned in an
// ops run or an interrupted one) and closes it.
func (r *pointRun) closeMeters(tEnd sim.Tick) error {
	if r.meterErr != nil {
		return r.meterErr
	}
	ms := r.m.Env.Meters
	if _, to, _ := ms.Span(); tEnd > r.warm && tEnd < to {
		if err := ms.Cut(tEnd); err != nil {
			return err
		}
	}
	ms.Finish()
	return nil
}

// RunPoint builds the model of one workload and runs it in slices of
// simulated time.
func RunPoint(w *workloads.Workload, opts RunOptions) (*results.PointResult, error) {
	m, err := Build(w)
	if err != nil {
		return nil, err
	}
	if opts.Tracer != nil {
		m.NIC.AddTracer(opts.Tracer) // one span per NIC request, post to retirement, on its QP's track
	}
	// Kinds set up their objects (PDs, CQs, QPs, MRs) when their source is
	// built, running the engine until every pending creation call has
	// completed; warm-up and the run's times count from the end of setup.
	for i := range w.Generators {
		g, err := newGenerator(m, &w.Generators[i], w.Run.Seed, 0, w.Run.Ops, opts.Tracer)
		if err != nil {
			return nil, err
		}
		m.gens = append(m.gens, g)
	}
	r := &pointRun{w: w, m: m}
	r.start()
	if opts.Tracer != nil {
		r.sampler = newTraceSampler(opts.Tracer, m, r.t0, r.end)
	}
	stop, err := r.advance(opts)
	if err != nil {
		return nil, err
	}
	if r.sampler != nil {
		r.sampler.sample(m.Env.Engine.Now())
		r.sampler.finish(m.Env.Meters)
	}
	return r.result(stop)
}

// start sets the point's times from the end of setup, arranges the
// warm-up snapshot and starts the generators.
func (r *pointRun) start() {
	eng, run := r.m.Env.Engine, &r.w.Run
	r.t0 = eng.Now()
	r.warm = r.t0 + usToTick(run.WarmupUS)
	r.end = r.t0 + usToTick(run.SimTimeMaxUS)
	if run.DurationUS > 0 {
		r.end = r.warm + usToTick(run.DurationUS)
	}
	r.m.WarmEnd = r.warm
	r.clock = newSeriesClock(r.t0, r.warm, r.end, r.seriesInterval())
	r.meterErr = r.m.Env.Meters.Window(r.warm, max(r.end, r.warm+1), r.clock.width)
	for _, g := range r.m.gens {
		g.warmEnd, g.stopArr, g.nextArr = r.warm, r.end, float64(r.t0)
		g.series = newGenSeries(&r.clock)
	}
	if r.warm == r.t0 {
		r.warmSnap = takeSnapshot(r.m, r.t0)
	} else {
		eng.After(r.warm-r.t0, 0, sim.HandlerFunc(func(now sim.Tick, _ uint64) { r.warmUp(now) }), 0)
	}
	for _, g := range r.m.gens {
		g.start(r.t0)
	}
}

// warmUp ends warm-up at now: the window's first snapshot and each
// generator's backlog.
func (r *pointRun) warmUp(now sim.Tick) {
	r.warmSnap = takeSnapshot(r.m, now)
	for _, g := range r.m.gens {
		g.backlogAtWarm = g.backlog()
		g.rnrAtWarm = g.rnrHeld()
	}
}

// advance runs the engine in slices until the end of the run, every
// generator's measured operations, a failure or an interrupt, and returns
// why it stopped: duration, sim_time_max, ops or interrupted.
func (r *pointRun) advance(opts RunOptions) (string, error) {
	eng := r.m.Env.Engine
	var every sim.Tick
	if r.sampler != nil {
		every = r.sampler.every
	}
	slices := newSlicer(r.end, every)
	if opts.slice > 0 {
		slices = slicer{len: opts.slice, min: opts.slice, fixed: true}
	}
	stop := "duration"
	if r.w.Run.DurationUS == 0 {
		stop = "sim_time_max"
	}
	for eng.Now() < r.end {
		ran := eng.Executed()
		eng.RunUntil(min(eng.Now()+slices.len, r.end))
		slices.ran(eng.Executed() - ran)
		if r.sampler != nil {
			r.sampler.sample(eng.Now())
		}
		if err := r.m.failed(); err != nil {
			return "", err
		}
		if r.allDone() {
			return "ops", nil
		}
		if opts.Progress != nil {
			opts.Progress(r.progress())
		}
		if opts.Interrupted != nil && opts.Interrupted() {
			return "interrupted", nil
		}
	}
	return stop, nil
}

// allDone reports whether every generator of an ops run has completed its
// measured operations.
func (r *pointRun) allDone() bool {
	if r.w.Run.Ops == 0 {
		return false
	}
	for _, g := range r.m.gens {
		if !g.done {
			return false
		}
	}
	return true
}

// progress is the fraction of the run done: of its simulated time, or of
// the slowest generator's measured operations when that is further.
func (r *pointRun) progress() float64 {
	p := float64(r.m.Env.Engine.Now()) / float64(r.end)
	if ops := r.w.Run.Ops; ops > 0 {
		lo := 1.0
		for _, g := range r.m.gens {
			lo = min(lo, float64(g.measured)/float64(ops))
		}
		p = max(p, lo)
	}
	return min(p, 1)
}

// result is the point's figures over its measured window, which ends at
// the last generator's last measured completion in an ops run.
func (r *pointRun) result(stop string) (*results.PointResult, error) {
	m := r.m
	now := m.Env.Engine.Now()
	tEnd := now
	if stop == "ops" {
		tEnd = 0
		for _, g := range m.gens {
			tEnd = max(tEnd, g.endAt)
		}
	}
	if now < r.warm || r.warmSnap.at > tEnd {
		r.warmSnap = takeSnapshot(m, now) // interrupted during warm-up: an empty window
		tEnd = now
	}
	endSnap := takeSnapshot(m, now)
	if stop == "ops" && m.endSnap != nil {
		endSnap = *m.endSnap
	}
	if err := r.closeMeters(tEnd); err != nil {
		return nil, err
	}
	w := r.w
	pr := &results.PointResult{Label: workloads.Label(w.Point), Point: w.Point, StopReason: stop,
		Partial:   stop == "interrupted" || stop == "sim_time_max",
		SimTimePS: uint64(now), SetupPS: uint64(r.t0), WarmupPS: uint64(r.warm - r.t0), WindowPS: uint64(tEnd - r.warmSnap.at),
		Events: m.Env.Engine.Executed(), Stats: m.Registry.Snapshot()}
	ms := m.Env.Meters
	for _, g := range m.gens {
		pr.Generators = append(pr.Generators, g.result(tEnd, r.warmSnap.at, ms))
	}
	pr.Utilisation = utilisation(ms)
	pr.PCIe, pr.MTT = windowFigures(r.warmSnap, endSnap, tEnd)
	pr.Warnings = coldFillWarnings(r.warmSnap, endSnap, w.Run.WarmupUS)
	pr.Warnings = append(pr.Warnings, failureWarnings(m.gens, r.t0)...)
	pr.Warnings = append(pr.Warnings, emptyLatencyWarnings(pr)...)
	pr.Warnings = append(pr.Warnings, moderationWarnings(w, m.gens)...)
	pr.Warnings = append(pr.Warnings, rnrWarnings(m)...)
	pr.Series = r.series(tEnd)
	results.Round(pr)
	return pr, nil
}

// series is the point's time series up to the interval holding tEnd.
func (r *pointRun) series(tEnd sim.Tick) *results.Series {
	c := &r.clock
	end := c.index(max(tEnd, c.base+1)-1) + 1
	s := &results.Series{IntervalPS: uint64(c.width), StartPS: uint64(c.base - c.t0), WarmupPS: uint64(c.warm - c.t0), EndPS: uint64(tEnd - c.t0),
		Resources: resourceSeries(r.m.Env.Meters, c.t0)}
	for _, g := range r.m.gens {
		s.Generators = append(s.Generators, g.series.result(g.cfg.Name, end))
	}
	return s
}
