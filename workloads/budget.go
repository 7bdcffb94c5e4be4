package workloads

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// The memory budget: run.memory_max_bytes bounds what a file can make the
// simulator hold. The loader adds up, for the largest point, an upper
// bound of each thing a file can ask for (MemoryEstimate; every item is
// documented in docs/workloads.md, "Memory budget"), plus what the run
// keeps of every point, and refuses a file above its budget, naming the
// key that asks for the most. The run enforces each bound: host memory
// past its pages is an error, an open-loop backlog drops arrivals past
// backlog_max, a trace records nothing past its event limit, histograms
// and the model's tables and objects do not grow past their size.

// DefaultMemoryMaxBytes is run.memory_max_bytes's default (assumed: 4 GiB
// fits a laptop and a CI runner; the built-in workloads need under 100 MiB).
const DefaultMemoryMaxBytes = 4 << 30

// Allowances of the estimate that are not read from the model's types.
const (
	// HostPageBytes is one page of a host memory model: its 4 KiB and
	// its map entry and pointer.
	HostPageBytes = nic.PageSizeBytes + 64
	// backlogEntryBytes is one queued open-loop arrival: an 8 B time in a
	// slice compacted when half consumed (at most 2x long) whose capacity
	// grows by doubling (at most 2x again).
	backlogEntryBytes = 32
	// slotBytes is what the run keeps per operation slot outside the
	// model (the generator's slot, the source's operation record, the
	// trace track's name): assumed, about twice what they take.
	slotBytes = 256
	// histogramsPerGenerator is a generator's latency histogram and its
	// parts' (at most 3: fr_write_send_inv).
	histogramsPerGenerator = 4
	// HistogramsPerHost bounds the model's own latency histograms on one
	// host (nic, pcie and mtt statistics: about 10).
	HistogramsPerHost = 16
	// resultBytesPerPoint is what a run keeps of each finished point (its
	// statistics, latency summaries, time series and resolved workload):
	// assumed, five times the largest built-in point's results.json.
	resultBytesPerPoint = 1 << 20
)

// MemoryItem is one part of a point's memory estimate.
type MemoryItem struct {
	Name  string // what it is
	Key   string // the key that asks for it (where an error is reported)
	Bytes uint64
	How   string // how it was counted
}

// MemoryEstimate is the most memory running the point w takes, by item,
// largest first.
func (w *Workload) MemoryEstimate() []MemoryItem {
	hosts := uint64(1)
	if w.NeedsHostB() {
		hosts = 2
	}
	spec := w.Adapter.NIC
	spec.TPT = w.Adapter.MTT
	items := []MemoryItem{{Name: "adapter tables", Key: "adapter", Bytes: hosts * nic.TableBytes(spec),
		How: fmt.Sprintf("%d host(s) x key table, MTT image, caches and pipeline stages", hosts)}}
	items = append(items, w.hostMemoryItem(), w.objectsItem(hosts), w.backlogItem())
	n := uint64(len(w.Generators))*histogramsPerGenerator + hosts*HistogramsPerHost
	items = append(items, MemoryItem{Name: "histograms", Key: "generators", Bytes: n * sim.HistogramBytesMax,
		How: fmt.Sprintf("%d latency histograms x %d B", n, sim.HistogramBytesMax)}, w.seriesItem(hosts), w.traceItem(hosts))
	sort.SliceStable(items, func(i, j int) bool { return items[i].Bytes > items[j].Bytes })
	return items
}

// hostMemoryItem is the pages the remote kinds write (Workload.HostPages,
// at most host_memory_pages_max per host; the run holds each host to it).
func (w *Workload) hostMemoryItem() MemoryItem {
	limit := uint64(w.Adapter.NIC.HostMemoryPagesMax)
	a, b := w.HostPages()
	pages := min(a, limit) + min(b, limit)
	return MemoryItem{Name: "host memory", Key: w.largestGenerator(func(g *Generator) uint64 {
		if k, ok := LookupKind(g.Kind); ok && k.HostPages != nil {
			ga, gb := k.HostPages(g)
			return ga + gb
		}
		return 0
	}), Bytes: pages * HostPageBytes, How: fmt.Sprintf("%d pages of host a and %d of host b x %d B", min(a, limit), min(b, limit), HostPageBytes)}
}

// objectsItem bounds every kind's objects: per stream a QP of 2 x
// outstanding initiator and outstanding receive entries (a send's
// receive_depth), a CQ of 2 x streams x as many entries, an MR or MW record per slot and stream
// with what its creation through a firmware command leaves held, the run's
// own records per slot, and what the kind's source keeps
// (Kind.SourceBytes); on each host for a remote kind.
func (w *Workload) objectsItem(hosts uint64) MemoryItem {
	o := nic.Objects()
	per := func(g *Generator) uint64 {
		h := uint64(1)
		if isRemote(g.Kind) {
			h = hosts
		}
		streams, out := uint64(g.Streams), uint64(g.Outstanding)
		recv := out
		if p, ok := g.Params.(*RDMAParams); ok && g.Kind == "send" {
			recv = max(out, uint64(ReceiveDepthFor(p, g.Outstanding, w.Adapter.NIC.MaxReceiveQueueDepth)))
		}
		slots := streams * out
		b := h * (streams*o.QPBytes(2*out, recv) + o.CQBytes(2*streams*recv) + (slots+streams+2)*(max(o.MR, o.MW)+o.Create))
		b += slots * slotBytes
		if k, ok := LookupKind(g.Kind); ok && k.SourceBytes != nil {
			b += k.SourceBytes(g)
		}
		return b
	}
	var total uint64
	for i := range w.Generators {
		total += per(&w.Generators[i])
	}
	return MemoryItem{Name: "objects", Key: w.largestGenerator(per), Bytes: total,
		How: "QPs, CQs, MRs and windows per stream and slot, the run's records per slot, the sources' page lists"}
}

// Time series: per interval, each generator keeps 3 counters and a
// latency sketch, its result 4 figures more; each meter a busy time and
// its result a fraction. The sketch holds blocks of 64 buckets of 8 B
// (workloads/traffic, series.go): two for the values below 128 ps and at
// most one per octave of the longest latency, sim_time_max_us. The estimate
// counts it as 128 + 64 buckets per octave at 40 B each, which covers the
// blocks (512 B and two 8 B pointers per octave, against 2,560 B).
const (
	seriesGenBytes   = 7*8 + 48 // counters, figures, sketch header
	sketchEntryBytes = 40
	seriesMeterBytes = 16
)

// SeriesIntervals is the most intervals of w's time series: the measured
// window cut at run.timeseries_interval_us (or in 100), and up to 1000
// intervals of warm-up before it (workloads/traffic, series.go).
func (w *Workload) SeriesIntervals() uint64 {
	r := &w.Run
	width := r.MeasuredMaxUS() / 100
	if r.TimeseriesIntervalUS > 0 {
		width = r.TimeseriesIntervalUS
	}
	width = max(width, 1e-6)
	return uint64(r.MeasuredMaxUS()/width) + min(uint64(r.WarmupUS/width), 1000) + 2
}

// seriesItem is the point's time series while it runs.
func (w *Workload) seriesItem(hosts uint64) MemoryItem {
	spec := w.Adapter.NIC
	meters := hosts*nic.MetersMax(spec) + 2
	maxPS := uint64(w.Run.SimTimeMaxUS * 1e6)
	keys := uint64(128) + 64*uint64(max(bits.Len64(maxPS)-7, 0))
	n, gens := w.SeriesIntervals(), uint64(len(w.Generators))
	return MemoryItem{Name: "time series", Key: "run.timeseries_interval_us", Bytes: n * (gens*(seriesGenBytes+keys*sketchEntryBytes) + meters*seriesMeterBytes),
		How: fmt.Sprintf("%d intervals x (%d generators' counters and latency sketches of up to %d buckets, %d meters)", n, gens, keys, meters)}
}

// resultBytes is what the run keeps of point w once it has run: its
// figures and statistics, and its time series' figures.
func (w *Workload) resultBytes() uint64 {
	hosts := uint64(1)
	if w.NeedsHostB() {
		hosts = 2
	}
	meters := hosts*nic.MetersMax(w.Adapter.NIC) + 2
	return resultBytesPerPoint + w.SeriesIntervals()*(uint64(len(w.Generators))*seriesGenBytes+meters*8)
}

// traceBytesPerTrack is one track of a trace (--trace, the first point):
// its name, its lanes and its thread record, assumed.
const traceBytesPerTrack = 256

// traceItem is a trace's tracks: one per operation slot, two per QP (its
// requests and their phases), one per meter's counter; the records
// themselves are written as they come (at most sim.DefaultTraceEventsMax).
func (w *Workload) traceItem(hosts uint64) MemoryItem {
	var tracks uint64
	for i := range w.Generators {
		g := &w.Generators[i]
		tracks += uint64(g.Streams*g.Outstanding) + 2*hosts*uint64(g.Streams)
	}
	tracks += hosts*nic.MetersMax(w.Adapter.NIC) + 2
	return MemoryItem{Name: "trace", Key: "generators", Bytes: tracks * traceBytesPerTrack,
		How: fmt.Sprintf("with --trace, %d tracks x %d B", tracks, traceBytesPerTrack)}
}

// backlogItem is the open-loop backlogs at their limit.
func (w *Workload) backlogItem() MemoryItem {
	per := func(g *Generator) uint64 {
		if g.Arrival == nil {
			return 0
		}
		return uint64(g.Streams) * uint64(g.Arrival.BacklogMax) * backlogEntryBytes
	}
	var total uint64
	for i := range w.Generators {
		total += per(&w.Generators[i])
	}
	key := w.largestGenerator(per)
	if key != "generators" {
		key += ".arrival.backlog_max"
	}
	return MemoryItem{Name: "open-loop backlogs", Key: key, Bytes: total,
		How: fmt.Sprintf("streams x backlog_max x %d B", backlogEntryBytes)}
}

// largestGenerator is the key of the generator for which f is largest
// ("generators" when it is 0 for all).
func (w *Workload) largestGenerator(f func(g *Generator) uint64) string {
	key, best := "generators", uint64(0)
	for i := range w.Generators {
		if b := f(&w.Generators[i]); b > best {
			key, best = "generators."+w.Generators[i].Name, b
		}
	}
	return key
}

// MemoryTotal adds up an estimate.
func MemoryTotal(items []MemoryItem) uint64 {
	var t uint64
	for _, it := range items {
		t += it.Bytes
	}
	return t
}

// checkMemory refuses a point whose estimate exceeds its budget, at the
// key of the largest item.
func (d *decoder) checkMemory(w *Workload) {
	items := w.MemoryEstimate()
	if msg := OverBudget(items, w.Run.MemoryMaxBytes, "run.memory_max_bytes"); msg != "" {
		d.errPath(items[0].Key, "%s", msg)
	}
}

// OverBudget is the complaint about an estimate (items, largest first)
// above budget, the value of key; "" when it fits.
func OverBudget(items []MemoryItem, budget uint64, key string) string {
	total := MemoryTotal(items)
	if total <= budget {
		return ""
	}
	return fmt.Sprintf("the run needs an estimated %s, more than %s = %s: %s; ask for less, or raise %s",
		Bytes(total), key, Bytes(budget), describeItems(items), key)
}

// describeItems lists the items that count, largest first.
func describeItems(items []MemoryItem) string {
	var parts []string
	for _, it := range items {
		if it.Bytes >= 1<<20 || len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s: %s)", it.Name, Bytes(it.Bytes), it.Key, it.How))
		}
	}
	return strings.Join(parts, ", ")
}

// Bytes formats a byte count in binary units.
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// MemoryEstimate is the most memory running f takes one point at a time
// (nicsim run): its largest point, and what the run keeps of every point.
func (f *File) MemoryEstimate() uint64 {
	var most uint64
	for _, w := range f.Points {
		most = max(most, MemoryTotal(w.MemoryEstimate()))
	}
	return most + f.resultsBytes()
}

// resultsBytes is what the run keeps of all of f's points.
func (f *File) resultsBytes() uint64 {
	var b uint64
	for _, w := range f.Points {
		b += w.resultBytes()
	}
	return b
}

// JobsWithin is how many of f's points fit the budget at once (nicsim
// sweep runs at most that many in parallel; at least 1).
func (f *File) JobsWithin() int {
	var most uint64
	for _, w := range f.Points {
		most = max(most, MemoryTotal(w.MemoryEstimate()))
	}
	budget, kept := f.Points[0].Run.MemoryMaxBytes, f.resultsBytes()
	if most == 0 || budget <= kept+most {
		return 1
	}
	return int(min((budget-kept)/most, 1<<20))
}

// checkMemory refuses a file whose points together exceed the budget: the
// run keeps every point's results (each point alone was checked by
// checkMemory of the decoder). The error is at the sweep, sn.
func (f *File) checkMemory(sn *yaml.Node) Errors {
	budget := f.Points[0].Run.MemoryMaxBytes
	if est := f.MemoryEstimate(); est > budget {
		e := &Error{File: f.Path, Path: "sweep", Msg: fmt.Sprintf("the run needs an estimated %s, more than run.memory_max_bytes = %s: %d points' results (%s) and the largest point; "+
			"sweep fewer points, or raise run.memory_max_bytes", Bytes(est), Bytes(budget), len(f.Points), Bytes(f.resultsBytes()))}
		if sn != nil {
			e.Line, e.Col = sn.Line, sn.Column
		}
		return Errors{e}
	}
	return nil
}
