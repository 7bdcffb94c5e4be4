package workloads

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
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
}

// SliceMax is the most simulated time run between two checks for an
// interrupt and two progress updates.
const SliceMax = 10 * sim.US

// Result is everything a run measured. It holds no wall-clock time and no
// map, so the same file and seed give byte-identical JSON.
type Result struct {
	Workload string        `json:"workload"`
	Seed     uint64        `json:"seed"`
	Partial  bool          `json:"partial"`
	Sweep    []SweepAxis   `json:"sweep,omitempty"`
	Points   []PointResult `json:"points"`
}

// PointResult is one sweep point (the whole run without a sweep).
type PointResult struct {
	Label string     `json:"label,omitempty"`
	Point []Override `json:"point,omitempty"`
	// StopReason is "duration", "ops", "sim_time_max" (an ops run that did
	// not finish: partial) or "interrupted" (partial).
	StopReason string `json:"stop_reason"`
	Partial    bool   `json:"partial"`
	SimTimePS  uint64 `json:"sim_time_ps"`
	// SetupPS is the simulated time setup took (objects created, pending
	// creation calls completed) before warm-up began.
	SetupPS  uint64 `json:"setup_ps"`
	WarmupPS uint64 `json:"warmup_ps"`
	// WindowPS is the measured window: from the end of warm-up to the end
	// of the run (duration) or to the last generator's last measured
	// completion (ops).
	WindowPS   uint64          `json:"window_ps"`
	Events     uint64          `json:"events"`
	Generators []GenResult     `json:"generators"`
	PCIe       LinkResult      `json:"pcie"`
	MTT        TPTResult       `json:"mtt"`
	Stats      []sim.StatValue `json:"stats"`
	// Warnings say why the point's figures may not be what the study wants
	// (for example a cache still filling in the measured window).
	Warnings []string `json:"warnings,omitempty"`
}

// GenResult is one generator's measured operations.
type GenResult struct {
	Name           string        `json:"name"`
	Kind           string        `json:"kind"`
	Completed      uint64        `json:"completed"` // measured operations completed (successes and failures)
	Failed         uint64        `json:"failed"`
	Failures       []ReasonCount `json:"failures,omitempty"`
	Dropped        uint64        `json:"dropped"` // open loop: arrivals refused by a full backlog
	InFlightAtEnd  int           `json:"in_flight_at_end"`
	WindowPS       uint64        `json:"window_ps"`
	ThroughputMops float64       `json:"throughput_mops"` // completions inside the window / window
	GoodputGbps    float64       `json:"goodput_gbps"`    // bytes of successful operations / window
	LatencyNS      Latency       `json:"latency_ns"`      // successful operations, arrival to completion
	// Parts are the request types inside an operation (a kind's
	// PartSource), each with its own latency: post to completion of the
	// successful requests started after warm-up.
	Parts []PartResult `json:"parts,omitempty"`
}

// PartResult is one request type inside a generator's operations.
type PartResult struct {
	Name           string  `json:"name"` // <generator>/<part>
	Kind           string  `json:"kind"` // the part's name
	Completed      uint64  `json:"completed"`
	ThroughputMops float64 `json:"throughput_mops"`
	LatencyNS      Latency `json:"latency_ns"`
}

// ReasonCount counts failures of one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  uint64 `json:"count"`
}

// Latency summarises a latency histogram in nanoseconds.
type Latency struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
	// CDF is the latency at each of CDFLevels (nanoseconds), for CDF plots;
	// empty without samples.
	CDF []Quantile `json:"cdf,omitempty"`
}

// Quantile is one point of a latency distribution.
type Quantile struct {
	Q  float64 `json:"q"`
	NS float64 `json:"ns"`
}

// CDFLevels are the quantiles reported in Latency.CDF: dense in the body,
// and out to the tail a hardware engineer asks about.
var CDFLevels = []float64{0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1}

// LinkResult is the PCIe link over the measured window. Up is NIC->host.
type LinkResult struct {
	UpUtilization   float64 `json:"up_utilization"`
	DownUtilization float64 `json:"down_utilization"`
	UpPayloadGbps   float64 `json:"up_payload_gbps"`
	DownPayloadGbps float64 `json:"down_payload_gbps"`
	UpTLPs          uint64  `json:"up_tlps"`
	DownTLPs        uint64  `json:"down_tlps"`
}

// TPTResult is the translation unit's caches over the measured window.
// Hit rate = hits / (hits + misses + merged misses); 0 without lookups.
type TPTResult struct {
	MPTLookups uint64  `json:"mpt_lookups"`
	MPTHitRate float64 `json:"mpt_hit_rate"`
	MTTLookups uint64  `json:"mtt_lookups"`
	MTTHitRate float64 `json:"mtt_hit_rate"`
}

type snapshot struct {
	at                 sim.Tick
	up, down           pcie.DirStats
	mptHits, mptAll    uint64
	mttHits, mttAll    uint64
	mptLooks, mttLooks uint64
	// Misses and evictions: a miss that evicts nothing fills an empty line.
	mptMiss, mptEvict uint64
	mttMiss, mttEvict uint64
}

func takeSnapshot(m *Model, now sim.Tick) snapshot {
	st := m.Link.Stats()
	t := &m.TPT.Stats
	all := func(s *mtt.TableStats) uint64 { return s.Hits + s.Misses + s.MergedMisses }
	return snapshot{at: now, up: st.Up, down: st.Down, mptHits: t.MPT.Hits, mptAll: all(&t.MPT),
		mttHits: t.MTT.Hits, mttAll: all(&t.MTT), mptLooks: t.MPT.Lookups, mttLooks: t.MTT.Lookups,
		mptMiss: t.MPT.Misses, mptEvict: t.MPT.Evictions, mttMiss: t.MTT.Misses, mttEvict: t.MTT.Evictions}
}

func usToTick(us float64) sim.Tick { return sim.FromNanoseconds(us * 1000) }

// RunFile runs every point of a loaded file in order. An interrupt stops
// the point in progress and skips the rest; the Result is then partial.
func RunFile(f *File, opts RunOptions) (*Result, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("workloads: %s: nothing to run", f.Path)
	}
	w0 := f.Points[0]
	res := &Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: f.Sweep}
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
				return nil, fmt.Errorf("point %d (%s): %w", i, Label(w.Point), err)
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

// RunPoint builds the model of one workload and runs it in slices of
// simulated time.
func RunPoint(w *Workload, opts RunOptions) (*PointResult, error) {
	m, err := Build(w)
	if err != nil {
		return nil, err
	}
	if opts.Tracer != nil {
		m.NIC.AddTracer(opts.Tracer) // one span per NIC request, post to retirement, on its QP's track
	}
	eng := m.Env.Engine
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
	t0 := eng.Now()
	warm := t0 + usToTick(w.Run.WarmupUS)
	end := t0 + usToTick(w.Run.SimTimeMaxUS)
	if w.Run.DurationUS > 0 {
		end = warm + usToTick(w.Run.DurationUS)
	}
	m.WarmEnd = warm
	for _, g := range m.gens {
		g.warmEnd, g.stopArr, g.nextArr = warm, end, float64(t0)
	}
	var warmSnap snapshot
	if warm == t0 {
		warmSnap = takeSnapshot(m, t0)
	} else {
		eng.After(warm-t0, 0, sim.HandlerFunc(func(now sim.Tick, _ uint64) { warmSnap = takeSnapshot(m, now) }), 0)
	}
	for _, g := range m.gens {
		g.start(t0)
	}
	allDone := func() bool {
		if w.Run.Ops == 0 {
			return false
		}
		for _, g := range m.gens {
			if !g.done {
				return false
			}
		}
		return true
	}
	slice := min(SliceMax, max(end/100, sim.NS))
	stop := "duration"
	if w.Run.DurationUS == 0 {
		stop = "sim_time_max"
	}
	for eng.Now() < end {
		eng.RunUntil(min(eng.Now()+slice, end))
		if m.err != nil {
			return nil, m.err
		}
		for _, g := range m.gens {
			if g.err != nil {
				return nil, g.err
			}
		}
		if allDone() {
			stop = "ops"
			break
		}
		if opts.Progress != nil {
			p := float64(eng.Now()) / float64(end)
			if w.Run.Ops > 0 {
				lo := 1.0
				for _, g := range m.gens {
					lo = min(lo, float64(g.measured)/float64(w.Run.Ops))
				}
				p = max(p, lo)
			}
			opts.Progress(min(p, 1))
		}
		if opts.Interrupted != nil && opts.Interrupted() {
			stop = "interrupted"
			break
		}
	}
	now := eng.Now()
	tEnd := now
	if stop == "ops" {
		tEnd = 0
		for _, g := range m.gens {
			tEnd = max(tEnd, g.endAt)
		}
	}
	if now < warm || warmSnap.at > tEnd {
		warmSnap = takeSnapshot(m, now) // interrupted during warm-up: an empty window
		tEnd = now
	}
	endSnap := takeSnapshot(m, now)
	if stop == "ops" && m.endSnap != nil {
		endSnap = *m.endSnap
	}
	pr := &PointResult{Label: Label(w.Point), Point: w.Point, StopReason: stop,
		Partial:   stop == "interrupted" || stop == "sim_time_max",
		SimTimePS: uint64(now), SetupPS: uint64(t0), WarmupPS: uint64(warm - t0), WindowPS: uint64(tEnd - warmSnap.at),
		Events: eng.Executed(), Stats: m.Registry.Snapshot()}
	for _, g := range m.gens {
		ge := tEnd
		if g.done {
			ge = g.endAt
		}
		win := ge - min(ge, warmSnap.at)
		gr := GenResult{Name: g.cfg.Name, Kind: g.cfg.Kind, Completed: g.measured, Failed: g.failed,
			Failures: g.failureCounts(), Dropped: g.dropped, InFlightAtEnd: g.inFlight(), WindowPS: uint64(win),
			LatencyNS: latencyNS(&g.lat)}
		if win > 0 {
			gr.ThroughputMops = float64(g.windowDone) / (float64(win) / float64(sim.US))
			gr.GoodputGbps = float64(g.windowBytes) * 8 / float64(win) * 1e3
		}
		if ps, ok := g.src.(PartSource); ok {
			for _, part := range ps.Parts() {
				r := PartResult{Name: g.cfg.Name + "/" + part.Name, Kind: part.Name, LatencyNS: latencyNS(part.Lat)}
				r.Completed = r.LatencyNS.Count
				if win > 0 && g.measured > 0 {
					// Parts are requests inside the generator's operations: scale
					// their measured count to the window's completions as the
					// operations' throughput is.
					done := float64(r.Completed) * float64(g.windowDone) / float64(g.measured)
					r.ThroughputMops = done / (float64(win) / float64(sim.US))
				}
				gr.Parts = append(gr.Parts, r)
			}
		}
		pr.Generators = append(pr.Generators, gr)
	}
	pr.PCIe, pr.MTT = windowFigures(warmSnap, endSnap, tEnd)
	pr.Warnings = coldFillWarnings(warmSnap, endSnap, w.Run.WarmupUS)
	return pr, nil
}

// ColdFillShareMax is the share of a window's cache lookups that may fill
// empty lines before a result is flagged as measured on a warming cache.
const ColdFillShareMax = 0.01

// coldFillWarnings flags a measured window in which a TPT cache was still
// filling: misses that evicted nothing are first touches of a cache not yet
// full, so the window mixes warm-up into steady state (hit rates read low,
// latencies high). The cure is a longer warm-up.
func coldFillWarnings(a, b snapshot, warmupUS float64) []string {
	var out []string
	for _, c := range []struct {
		name                 string
		miss, evict, lookups uint64
	}{
		{"MPT", (b.mptMiss - a.mptMiss), (b.mptEvict - a.mptEvict), b.mptLooks - a.mptLooks},
		{"MTT", (b.mttMiss - a.mttMiss), (b.mttEvict - a.mttEvict), b.mttLooks - a.mttLooks},
	} {
		if c.lookups == 0 || c.miss <= c.evict {
			continue
		}
		cold := c.miss - c.evict
		if share := float64(cold) / float64(c.lookups); cold >= 10 && share > ColdFillShareMax {
			out = append(out, fmt.Sprintf("%s cache still filling in the measured window: %d of %d lookups (%.1f %%) missed into empty lines; "+
				"raise run.warmup_us (now %g) so the window measures steady state", c.name, cold, c.lookups, 100*share, warmupUS))
		}
	}
	return out
}

// windowFigures computes link utilisation and cache hit rates between two
// snapshots, over the window to tEnd. A transfer in progress at either end
// counts wholly in the snapshot that saw it start, so a short window can
// read slightly high; utilisation is capped at 1.
func windowFigures(a, b snapshot, tEnd sim.Tick) (LinkResult, TPTResult) {
	var l LinkResult
	if el := float64(tEnd - min(tEnd, a.at)); el > 0 {
		l.UpUtilization = min(1, float64(b.up.BusyPS-a.up.BusyPS)/el)
		l.DownUtilization = min(1, float64(b.down.BusyPS-a.down.BusyPS)/el)
		l.UpPayloadGbps = float64(b.up.PayloadBytes-a.up.PayloadBytes) * 8 / el * 1e3
		l.DownPayloadGbps = float64(b.down.PayloadBytes-a.down.PayloadBytes) * 8 / el * 1e3
	}
	l.UpTLPs = b.up.TLPCount() - a.up.TLPCount()
	l.DownTLPs = b.down.TLPCount() - a.down.TLPCount()
	rate := func(h, n uint64) float64 {
		if n == 0 {
			return 0
		}
		return float64(h) / float64(n)
	}
	t := TPTResult{MPTLookups: b.mptLooks - a.mptLooks, MTTLookups: b.mttLooks - a.mttLooks,
		MPTHitRate: rate(b.mptHits-a.mptHits, b.mptAll-a.mptAll),
		MTTHitRate: rate(b.mttHits-a.mttHits, b.mttAll-a.mttAll)}
	return l, t
}

func latencyNS(h *sim.Histogram) Latency {
	s := h.Summarize()
	ns := func(v float64) float64 { return v / 1e3 }
	l := Latency{Count: s.Count, Mean: ns(s.Mean), Min: ns(float64(s.Min)), P50: ns(s.P50), P99: ns(s.P99),
		P999: ns(s.P999), Max: ns(float64(s.Max))}
	if s.Count > 0 {
		l.CDF = make([]Quantile, len(CDFLevels))
		for i, q := range CDFLevels {
			l.CDF[i] = Quantile{Q: q, NS: ns(h.Quantile(q))}
		}
	}
	return l
}
