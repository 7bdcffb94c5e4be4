package workloads

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// elemPath is the path of element i of the list at listPath, as the decoder
// named it.
func (d *decoder) elemPath(listPath string, i int) string {
	if n := d.nodes[listPath]; n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
		return joinPath(listPath, elemSeg(n.Content[i], i))
	}
	return joinPath(listPath, itoa(i))
}

// validate runs the checks that span several keys. It runs only on a
// workload that decoded without errors.
func (d *decoder) validate(w *Workload) {
	r := &w.Run
	if r.DurationUS == 0 && r.Ops == 0 {
		d.errPath("run", "needs duration_us (simulated µs after warm-up) or ops (measured operations per generator), or both")
	}
	if r.WarmupUS+r.DurationUS > r.SimTimeMaxUS {
		d.errPath("run.duration_us", "warmup_us + duration_us = %g µs exceeds sim_time_max_us = %g µs", r.WarmupUS+r.DurationUS, r.SimTimeMaxUS)
	}
	if iv := r.TimeseriesIntervalUS; iv > 0 {
		if n := math.Ceil(r.MeasuredMaxUS() / iv); n > TimeseriesIntervalsMax {
			d.errPath("run.timeseries_interval_us", "%g µs cuts the measured window of %g µs into %g intervals, above the limit of %d",
				iv, r.MeasuredMaxUS(), n, TimeseriesIntervalsMax)
		}
	}
	if w.Adapter.NIC.RegisterMrInline {
		// The kinds issue NdkRegisterMr from the run's events, as a consumer
		// whose provider may not block; an inline completion would end an
		// operation inside its own start (docs/ndk.md, "Provider settings").
		d.errPath("adapter.nic.register_mr_inline", "is for scenarios: workload kinds need NdkRegisterMr to pend (leave it false)")
	}
	d.validateRegions(w)
	d.validateGenerators(w)
	if len(d.errs) == 0 {
		d.checkMemory(w)
	}
}

// uniqueName checks the name of the element at path p: a valid name (else
// bad, a message with the name as %q) not given to an earlier one (seen
// maps names to their paths; what names the element in messages).
func (d *decoder) uniqueName(seen map[string]string, p, name, what, bad string) {
	switch first, dup := seen[name]; {
	case !validName(name):
		d.errPath(joinPath(p, "name"), bad, truncate(name, 40))
	case dup:
		d.errPath(joinPath(p, "name"), "%s %q is defined twice (first at %s)", what, name, first)
	default:
		seen[name] = p
	}
}

// validateRegions checks the regions' names and that they fit the TPT.
func (d *decoder) validateRegions(w *Workload) {
	seen := map[string]string{}
	var pages uint64
	for i := range w.Regions {
		rg := &w.Regions[i]
		p := d.elemPath("regions", i)
		d.uniqueName(seen, p, rg.Name, "region", "a region needs a name of 1..64 letters, digits, '_' or '-', starting with a letter (found %q)")
		if rg.Pages == 0 {
			d.errPath(p, "pages is required (1..2^24)")
		}
		pages += rg.Pages
		if pages > uint64(w.Adapter.MTT.MTTEntriesMax) {
			d.errPath(joinPath(p, "pages"), "regions need %d MTT entries in all, more than adapter.mtt.mtt_entries_max = %d", pages, w.Adapter.MTT.MTTEntriesMax)
			pages = 0 // report once
		}
	}
	if uint64(len(w.Regions)) > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		d.errPath("regions", "%d regions, more than adapter.mtt.key_table_entries_max = %d", len(w.Regions), w.Adapter.MTT.KeyTableEntriesMax)
	}
}

// validateGenerators names the generators that have no name, checks the
// names and the operations in flight, and runs each kind's Check.
func (d *decoder) validateGenerators(w *Workload) {
	seen := map[string]string{}
	inflight := 0
	var backlog uint64
	for i := range w.Generators {
		g := &w.Generators[i]
		p := d.elemPath("generators", i)
		if g.Name == "" {
			g.Name = fmt.Sprintf("%s-%d", g.Kind, i)
		}
		d.uniqueName(seen, p, g.Name, "generator", "a generator name is 1..64 letters, digits, '_' or '-', starting with a letter (found %q)")
		inflight += g.Streams * g.Outstanding
		if g.Arrival != nil && g.Arrival.RateMops == 0 {
			d.errPath(joinPath(p, "arrival"), "rate_mops is required for an open-loop generator (1e-6..1e4 million operations per second)")
		}
		if g.Arrival != nil {
			if backlog += uint64(g.Streams) * uint64(g.Arrival.BacklogMax); backlog > BacklogTotalMax {
				d.errPath(joinPath(p, "arrival.backlog_max"), "streams x backlog_max summed over the open-loop generators is %d, more than %d (2^24)",
					backlog, BacklogTotalMax)
				backlog = 0 // report once
			}
		}
		if k, ok := LookupKind(g.Kind); ok && k.Check != nil {
			k.Check(&Checker{d: d, base: p}, w, g)
		}
	}
	if inflight > InFlightMax {
		d.errPath("generators", "streams x outstanding summed over generators is %d, more than %d", inflight, InFlightMax)
	}
	d.checkHostPages(w)
}
