package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// failureWarnings names the generators with failed completions in the
// measured window: how many, and the run's first failure (since the end of
// setup t0), whose status is usually the cause of the rest (a QP in error
// cancels what is posted to it after). Throughput, goodput and the own
// rate count only the successful completions.
func failureWarnings(gens []*generator, t0 sim.Tick) []string {
	var out []string
	for _, g := range gens {
		if g.windowFailed == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("generator %s: %d of the %d operations completed in the measured window failed "+
			"(first failure %s, at %.3f us); throughput, goodput and own rate count only the %d that succeeded",
			g.cfg.Name, g.windowFailed, g.windowDone, g.firstFail, float64(g.firstFailAt-t0)/float64(sim.US),
			g.windowDone-g.windowFailed))
	}
	return out
}

// emptyLatencyWarnings names the generators with no latency sample in the
// window: nothing they started after warm-up completed, so they have no
// quantile (results.csv leaves the cells empty, the summary prints "-").
func emptyLatencyWarnings(pr *results.PointResult) []string {
	var out []string
	for _, g := range pr.Generators {
		if g.LatencyNS.Count == 0 {
			out = append(out, fmt.Sprintf("generator %s: no operation that arrived after warm-up completed successfully in the measured window: no latency figures; "+
				"lengthen run.duration_us", g.Name))
		}
	}
	return out
}

// InterruptSource is a Source whose operations can arm a CQ for an
// interrupt (NdkArmCq), the only way interrupt moderation has an effect.
type InterruptSource interface {
	ArmsCQ() bool
}

// moderationWarnings says that the workload's interrupt moderation
// (adapter.nic.moderation_cqes, moderation_time_ns), set away from its
// preset's, changes nothing: no generator arms a CQ, so no interrupt is
// raised to moderate.
func moderationWarnings(w *workloads.Workload, gens []*generator) []string {
	for _, g := range gens {
		if is, ok := g.src.(InterruptSource); ok && is.ArmsCQ() {
			return nil
		}
	}
	base := workloads.DefaultPreset
	if w.Adapter.Preset != "" {
		base = w.Adapter.Preset
	}
	p, ok := workloads.PresetByName(base)
	if !ok {
		return nil
	}
	a, d := &w.Adapter.NIC, &p.Adapter.NIC
	if a.ModerationCQEs == d.ModerationCQEs && a.ModerationTimeNS == d.ModerationTimeNS {
		return nil
	}
	return []string{fmt.Sprintf("adapter.nic.moderation_cqes = %d and moderation_time_ns = %d (preset %s: %d and %d) change nothing: "+
		"no generator kind arms a CQ for interrupts, so none is raised to moderate (completions are polled)",
		a.ModerationCQEs, a.ModerationTimeNS, base, d.ModerationCQEs, d.ModerationTimeNS)}
}

// rnrWarnings says when a host answered Sends with RNR NAKs: a receiver
// that had no receive posted held the sender's QPs for the RNR timer
// each time, which the figures include.
func rnrWarnings(m *Model) []string {
	var out []string
	for _, a := range []*nic.Adapter{m.NIC, m.B} {
		if a == nil || a.Stats.RNRNaks == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s answered %d Sends with an RNR NAK (no receive posted): the sender's QP held its requests "+
			"adapter.nic.rnr_timer_ns = %d ns each time before sending them again, and the figures include that wait; "+
			"a send generator's receive_depth keeps more receives posted", a.Name(), a.Stats.RNRNaks, a.Spec().RNRTimerNS))
	}
	return out
}
