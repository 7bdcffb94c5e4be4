package traffic

import (
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// result is the generator's figures over its window, from warmAt to tEnd
// or to its own last measured completion when it finished first, and what
// binds it among the model's meters. Throughput, goodput and the kind's
// own rate count successful completions only; failures have their own
// count (Failed) and a warning (failureWarnings).
func (g *generator) result(tEnd, warmAt sim.Tick, ms *sim.Meters) results.GenResult {
	ge := tEnd
	if g.done {
		ge = g.endAt
	}
	win := ge - min(ge, warmAt)
	gr := results.GenResult{Name: g.cfg.Name, Kind: g.cfg.Kind, Completed: g.measured, Failed: g.failed,
		Failures: g.failureCounts(), Dropped: g.dropped, InFlightAtEnd: g.inFlight(), WindowPS: uint64(win),
		LatencyNS: results.NewLatency(&g.lat)}
	perUS := func(n uint64) float64 { return float64(n) / (float64(win) / float64(sim.US)) }
	if win > 0 {
		gr.ThroughputMops = perUS(g.windowDone - g.windowFailed)
		gr.GoodputGbps = float64(g.windowBytes) * 8 / float64(win) * 1e3
	}
	if fs, ok := g.src.(FigureSource); ok {
		name, unit := fs.Figure()
		gr.Figure = results.Figure{Name: name, Unit: unit}
		if win > 0 {
			gr.Figure.Value = perUS(g.windowUnits)
		}
	} else {
		gr.MovesPayload = true
	}
	gr.BoundBy = boundBy(ms, g.use.uses, g.evidence(win))
	if ps, ok := g.src.(PartSource); ok {
		gr.Parts = g.partResults(ps.Parts(), win)
	}
	return gr
}

// evidence is what the generator itself says about its window win for
// boundBy: its successful and failed completions, whether an open loop
// fell behind its arrivals (dropped some, or its backlog grew), and how
// much of the window its QPs were held by RNR NAKs.
func (g *generator) evidence(win sim.Tick) boundEvidence {
	ev := boundEvidence{open: g.open, ok: g.windowDone - g.windowFailed, failed: g.windowFailed,
		behind: g.dropped > 0 || g.backlog() > g.backlogAtWarm}
	if n := len(g.initiatorQPs()); n > 0 && win > 0 {
		ev.rnrHeld = float64(g.rnrHeld()-g.rnrAtWarm) / (float64(n) * float64(win))
	}
	return ev
}

// initiatorQPs are the generator's QPs on host a, which post its requests.
func (g *generator) initiatorQPs() []*nic.QP {
	if qs, ok := g.src.(QPSource); ok {
		a, _ := qs.QPs()
		return a
	}
	return nil
}

// rnrHeld is the time its QPs have been held by RNR NAKs so far.
func (g *generator) rnrHeld() sim.Tick {
	var t sim.Tick
	for _, qp := range g.initiatorQPs() {
		t += g.m.NIC.RNRHeld(qp)
	}
	return t
}

// partResults are the figures of the request types inside the generator's
// operations: each part's successful requests (Part.Lat).
func (g *generator) partResults(parts []Part, win sim.Tick) []results.PartResult {
	var out []results.PartResult
	for _, part := range parts {
		r := results.PartResult{Name: g.cfg.Name + "/" + part.Name, Kind: part.Name, LatencyNS: results.NewLatency(part.Lat)}
		r.Completed = r.LatencyNS.Count
		if win > 0 && g.measured > 0 {
			// Parts are requests inside the generator's operations: scale
			// their measured count (requests started after warm-up) to the
			// window by the operations' ratio of window completions to
			// measured ones, failures in both, as the parts' requests are
			// counted whatever became of their operation.
			done := float64(r.Completed) * float64(g.windowDone) / float64(g.measured)
			r.ThroughputMops = done / (float64(win) / float64(sim.US))
		}
		out = append(out, r)
	}
	return out
}
