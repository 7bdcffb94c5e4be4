package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"reflect"
	"sort"
)

// Counter is a plain event or byte counter, incremented by field access on
// hot paths (c.N++ or c.N += n).
type Counter struct {
	N uint64
}

// Add adds n.
func (c *Counter) Add(n uint64) { c.N += n }

// Inc adds one.
func (c *Counter) Inc() { c.N++ }

// Histogram records non-negative integer samples (latencies in ps, sizes in
// bytes) in log-linear buckets in the HDR-histogram style: values below 1024
// are exact; above, each power of two is cut into 512 buckets and a bucket
// reports its midpoint, so every reported percentile is within 1/1024
// (0.098 %) of a recorded value. Count, sum, min and max are exact. Memory
// grows by one 4 KiB block per power of two actually used.
type Histogram struct {
	count uint64
	// sum is the exact sum of the samples: sumHi*2^64 + sum.
	sum, sumHi uint64
	// notMin is the complement of the smallest sample: the largest
	// complement, 0 (no sample) in the zero Histogram, so that Record
	// needs no test for the first sample.
	notMin uint64
	max    uint64
	exact  [histExact]uint64
	sub    [64]*[histSub]uint64 // by shift
}

const (
	histExactBits = 10
	histExact     = 1 << histExactBits
	histSub       = histExact / 2
)

// HistogramBytesMax is the most memory a Histogram takes: its exact
// counters, the block pointers and every block of sub-buckets a 64-bit
// value can reach (one per shift above histExactBits).
const HistogramBytesMax = histExact*8 + 64*8 + (64-histExactBits)*histSub*8

// HistogramRelErrorMax is the largest relative error of a reported
// percentile: half a bucket over the bucket's lower bound.
const HistogramRelErrorMax = 1.0 / (2 * histSub)

// Record adds one sample.
func (h *Histogram) Record(v uint64) {
	if ^v > h.notMin {
		h.notMin = ^v
	}
	if v > h.max {
		h.max = v
	}
	h.count++
	sum := h.sum + v
	if sum < v {
		h.sumHi++
	}
	h.sum = sum
	if v < histExact {
		h.exact[v]++
		return
	}
	// v has bits.Len64(v) bits: the top histExactBits of them pick the
	// bucket, the leading one dropped (a mask rather than a subtraction,
	// so that the index needs no bounds check). v|1 has as many bits and
	// the same top ones (shift is at least 1), and is not 0, which spares
	// the length its test for 0.
	v |= 1
	shift := uint(bits.Len64(v)) - histExactBits
	blk := h.sub[shift&63]
	if blk == nil {
		blk = h.block(shift)
	}
	blk[(v>>shift)&(histSub-1)]++
}

// block is the block of sub-buckets of shift, created on first use.
func (h *Histogram) block(shift uint) *[histSub]uint64 {
	if h.sub[shift&63] == nil {
		h.sub[shift&63] = new([histSub]uint64)
	}
	return h.sub[shift&63]
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.count }

// Min is the smallest sample (0 when empty).
func (h *Histogram) Min() uint64 {
	if h.count == 0 {
		return 0
	}
	return ^h.notMin
}

// Max is the largest sample (0 when empty).
func (h *Histogram) Max() uint64 { return h.max }

// Mean is the exact mean (0 when empty).
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return (float64(h.sumHi)*(1<<64) + float64(h.sum)) / float64(h.count)
}

// Quantile returns the value at quantile p in [0, 1] by the nearest-rank
// rule: the smallest recorded value v such that at least ceil(p*count)
// samples are <= v (bucket midpoint above 1024, clamped to [min, max]).
func (h *Histogram) Quantile(p float64) float64 {
	if h.count == 0 {
		return 0
	}
	if p <= 0 {
		return float64(h.Min())
	}
	if p >= 1 {
		return float64(h.max)
	}
	rank := uint64(math.Ceil(p * float64(h.count)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for v := uint64(0); v < histExact; v++ {
		seen += h.exact[v]
		if seen >= rank {
			return float64(v)
		}
	}
	for shift := uint(1); shift < 64; shift++ {
		blk := h.sub[shift]
		if blk == nil {
			continue
		}
		for i, c := range blk {
			seen += c
			if seen >= rank {
				lo := uint64(i+histSub) << shift
				mid := float64(lo) + float64(uint64(1)<<shift)/2
				return math.Min(math.Max(mid, float64(h.Min())), float64(h.max))
			}
		}
	}
	return float64(h.max)
}

// Buckets calls fn for every non-empty bucket in increasing order of
// value: the samples in [lo, hi) and how many there are (below 1024 every
// value is its own bucket).
func (h *Histogram) Buckets(fn func(lo, hi, count uint64)) {
	for v := range h.exact {
		if c := h.exact[v]; c > 0 {
			fn(uint64(v), uint64(v)+1, c)
		}
	}
	for shift := uint(1); shift < 64; shift++ {
		blk := h.sub[shift]
		if blk == nil {
			continue
		}
		for i, c := range blk {
			if c > 0 {
				lo := uint64(i+histSub) << shift
				fn(lo, lo+uint64(1)<<shift, c)
			}
		}
	}
}

// Merge adds o's samples to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	h.notMin = max(h.notMin, o.notMin)
	h.max = max(h.max, o.max)
	h.count += o.count
	sum := h.sum + o.sum
	if sum < o.sum {
		h.sumHi++
	}
	h.sum = sum
	h.sumHi += o.sumHi
	for i, c := range o.exact {
		h.exact[i] += c
	}
	for s, blk := range o.sub {
		if blk == nil {
			continue
		}
		if h.sub[s] == nil {
			h.sub[s] = new([histSub]uint64)
		}
		for i, c := range blk {
			h.sub[s][i] += c
		}
	}
}

// Summary is a histogram's report.
type Summary struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean"`
	Min   uint64  `json:"min"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   uint64  `json:"max"`
}

// Summarize reports count, mean, min, p50, p99, p99.9 and max.
func (h *Histogram) Summarize() Summary {
	return Summary{Count: h.count, Mean: h.Mean(), Min: h.Min(),
		P50: h.Quantile(0.5), P99: h.Quantile(0.99), P999: h.Quantile(0.999), Max: h.max}
}

// Registry names every statistic of a simulation under a hierarchical name
// (such as "NIC[0].PCIe.Up.TLPs") with its unit and description, in the gem5
// manner. Blocks register their plain counter fields once at build time; the
// hot path never touches the registry.
type Registry struct {
	entries []regEntry
	names   map[string]bool
	onRead  []func()
}

// OnRead registers f to run before statistics are read (Snapshot,
// CounterRef.Value): a block whose counters can lag the simulated time
// brings them up to date there (TickDriver.Settle).
func (r *Registry) OnRead(f func()) { r.onRead = append(r.onRead, f) }

func (r *Registry) sync() {
	for _, f := range r.onRead {
		f()
	}
}

type regEntry struct {
	name, unit, desc string
	ctr              *uint64
	hist             *Histogram
	fn               func() float64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

func (r *Registry) add(e regEntry) error {
	if e.name == "" || e.unit == "" || e.desc == "" {
		return fmt.Errorf("sim: statistic %q needs a name, a unit and a description", e.name)
	}
	if r.names[e.name] {
		return fmt.Errorf("sim: statistic %q registered twice", e.name)
	}
	r.names[e.name] = true
	r.entries = append(r.entries, e)
	return nil
}

// Counter registers a counter field.
func (r *Registry) Counter(name, unit, desc string, c *uint64) error {
	return r.add(regEntry{name: name, unit: unit, desc: desc, ctr: c})
}

// Histogram registers a histogram.
func (r *Registry) Histogram(name, unit, desc string, h *Histogram) error {
	return r.add(regEntry{name: name, unit: unit, desc: desc, hist: h})
}

// Struct registers the statistics of the struct p points to: every field
// with a stat tag, a uint64 as a counter or a Histogram as a histogram,
// under prefix+the tag, with its unit and desc tags, as in
//
//	Hits uint64 `stat:"Hits" unit:"accesses" desc:"accesses that hit"`
//
// Fields without a stat tag are not registered.
func (r *Registry) Struct(prefix string, p any) error {
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, ok := f.Tag.Lookup("stat")
		if !ok {
			continue
		}
		e := regEntry{name: prefix + name, unit: f.Tag.Get("unit"), desc: f.Tag.Get("desc")}
		switch x := v.Field(i).Addr().Interface().(type) {
		case *uint64:
			e.ctr = x
		case *Histogram:
			e.hist = x
		default:
			return fmt.Errorf("sim: statistic %q: field %s is a %s, want uint64 or Histogram", e.name, f.Name, f.Type)
		}
		if err := r.add(e); err != nil {
			return err
		}
	}
	return nil
}

// Formula registers a derived figure computed when the registry is dumped.
func (r *Registry) Formula(name, unit, desc string, f func() float64) error {
	return r.add(regEntry{name: name, unit: unit, desc: desc, fn: f})
}

// CounterRef is one registered counter, for sampling it while the
// simulation runs (a trace's counter tracks).
type CounterRef struct {
	Name, Unit string
	ptr        *uint64
	r          *Registry
}

// Value is the counter's current value.
func (c CounterRef) Value() uint64 {
	c.r.sync()
	return *c.ptr
}

// Counters lists the registered counters (not histograms or formulas),
// sorted by name.
func (r *Registry) Counters() []CounterRef {
	var out []CounterRef
	for _, e := range r.entries {
		if e.ctr != nil {
			out = append(out, CounterRef{Name: e.name, Unit: e.unit, ptr: e.ctr, r: r})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// StatValue is one statistic in a dump.
type StatValue struct {
	Name  string   `json:"name"`
	Unit  string   `json:"unit"`
	Desc  string   `json:"desc"`
	Value *float64 `json:"value,omitempty"`
	Count *uint64  `json:"count,omitempty"`
	Hist  *Summary `json:"hist,omitempty"`
}

// Snapshot returns every statistic sorted by name.
func (r *Registry) Snapshot() []StatValue {
	r.sync()
	out := make([]StatValue, 0, len(r.entries))
	for _, e := range r.entries {
		sv := StatValue{Name: e.name, Unit: e.unit, Desc: e.desc}
		switch {
		case e.ctr != nil:
			v := *e.ctr
			sv.Count = &v
		case e.hist != nil:
			s := e.hist.Summarize()
			sv.Hist = &s
		default:
			v := e.fn()
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			sv.Value = &v
		}
		out = append(out, sv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteJSON dumps every statistic, sorted by name, as indented JSON. The
// output is byte-identical for identical statistics.
func (r *Registry) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Stats []StatValue `json:"stats"`
	}{r.Snapshot()})
}
