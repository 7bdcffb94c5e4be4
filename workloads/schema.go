package workloads

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Workload is one resolved workload file (one point of its sweep). Every
// key, its unit, default and range are in docs/workloads.md; the `check`
// tags are the ranges.
type Workload struct {
	Name        string      `yaml:"name" json:"name" check:"len:1..64"`
	Description string      `yaml:"description" json:"description,omitempty" check:"len:0..4096"`
	Adapter     Adapter     `yaml:"adapter" json:"adapter"`
	Run         Run         `yaml:"run" json:"run"`
	Regions     []Region    `yaml:"regions" json:"regions" check:"len:0..1024"`
	Generators  []Generator `yaml:"generators" json:"generators" check:"len:1..64"`
	// Point is the sweep point this workload is (empty without a sweep).
	Point []Override `yaml:"-" json:"-"`
}

func (w *Workload) setDefaults() {
	p, _ := PresetByName(DefaultPreset)
	w.Adapter = p.Adapter
	w.Run.setDefaults()
}

// Run is run control. Times are simulated microseconds.
type Run struct {
	Seed uint64 `yaml:"seed" json:"seed"`
	// WarmupUS is simulated time before measuring: operations that arrive
	// earlier are not in the statistics.
	WarmupUS float64 `yaml:"warmup_us" json:"warmup_us" check:"0..1e6"`
	// DurationUS is the measured time after warm-up (0: stop by Ops).
	DurationUS float64 `yaml:"duration_us" json:"duration_us" check:"0..1e7"`
	// Ops is the measured operations each generator completes (0: stop by
	// DurationUS). With both, the run stops at whichever comes first.
	Ops uint64 `yaml:"ops" json:"ops" check:"0..1e8"`
	// SimTimeMaxUS stops a run that has not finished by then (an Ops run
	// whose operations fail to complete, for instance); such a run is
	// reported as partial.
	SimTimeMaxUS float64 `yaml:"sim_time_max_us" json:"sim_time_max_us" check:"1..1e7"`
	// TimeseriesIntervalUS is the width of one interval of the resources'
	// busy-fraction time series over the measured window (0: a hundredth
	// of the window, which for an ops run is sim_time_max_us less warm-up).
	TimeseriesIntervalUS float64 `yaml:"timeseries_interval_us" json:"timeseries_interval_us" check:"0..1e7"`
	// MemoryMaxBytes is the memory budget: the loader refuses a file
	// whose estimate (budget.go) is above it.
	MemoryMaxBytes uint64 `yaml:"memory_max_bytes" json:"memory_max_bytes" check:"2^24..2^40"`
}

// TimeseriesIntervalsMax bounds the intervals of a time series (the
// simulator's sim.MeterIntervalsMax).
const TimeseriesIntervalsMax = 1 << 16

// MeasuredMaxUS is the longest the measured window can be: duration_us,
// or for a run that stops by ops, sim_time_max_us less the warm-up.
func (r *Run) MeasuredMaxUS() float64 {
	if r.DurationUS > 0 {
		return r.DurationUS
	}
	return r.SimTimeMaxUS - r.WarmupUS
}

func (r *Run) setDefaults() {
	r.Seed = 1
	r.WarmupUS = 10
	r.SimTimeMaxUS = 1e6
	r.MemoryMaxBytes = DefaultMemoryMaxBytes
}

// Region is a memory region registered before the run starts (functionally,
// at time 0, without timing: registration operations that cost time arrive
// with the NIC). Its pages are contiguous in the MTT and map to
// page-aligned host addresses.
type Region struct {
	Name      string   `yaml:"name" json:"name" check:"len:1..64"`
	Pages     uint64   `yaml:"pages" json:"pages" check:"1..2^24"`
	PageBytes uint64   `yaml:"page_bytes" json:"page_bytes" check:"4096|2097152"`
	Rights    []string `yaml:"rights" json:"rights" check:"len:0..3 local_write|remote_read|remote_write"`
}

func (r *Region) setDefaults() {
	r.PageBytes = 4096
	r.Rights = []string{"local_write", "remote_read", "remote_write"}
}

// Bytes is the region's length.
func (r *Region) Bytes() uint64 { return r.Pages * r.PageBytes }

// Generator issues operations of one kind on one or more streams (one QP
// each for the NIC kinds). Closed loop (no arrival): each stream keeps
// Outstanding operations in flight. Open loop (arrival set): operations
// arrive at a rate, are dealt to the streams in turn, and wait in a backlog
// while their stream has Outstanding in flight; latency counts from arrival.
type Generator struct {
	Name        string   `yaml:"name" json:"name" check:"len:1..64"`
	Kind        string   `yaml:"kind" json:"kind"`
	Streams     int      `yaml:"streams" json:"streams" check:"1..65536"`
	Outstanding int      `yaml:"outstanding" json:"outstanding" check:"1..4096"`
	Arrival     *Arrival `yaml:"arrival" json:"arrival,omitempty"`
	// Params is the kind's parameter struct (a pointer), decoded from the
	// same mapping.
	Params any `yaml:"-" json:"-"`
}

func (g *Generator) setDefaults() {
	g.Streams = 1
	g.Outstanding = 1
}

// Arrival makes a generator open loop.
type Arrival struct {
	Process    string  `yaml:"process" json:"process" check:"poisson|fixed"`
	RateMops   float64 `yaml:"rate_mops" json:"rate_mops" check:"1e-6..1e4"`
	BacklogMax int     `yaml:"backlog_max" json:"backlog_max" check:"1..1000000"`
}

func (a *Arrival) setDefaults() {
	a.Process = "poisson"
	a.BacklogMax = 65536
}

// InFlightMax bounds operations in flight over all generators of a file
// (streams x outstanding, summed).
const InFlightMax = 1 << 20

// BacklogTotalMax bounds the arrivals open-loop generators can hold waiting
// (streams x arrival.backlog_max, summed over the generators of a file), as
// InFlightMax bounds those in flight.
const BacklogTotalMax = 1 << 24

func (g *Generator) decodeYAML(d *decoder, n *yaml.Node, path, _ string) {
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping of keys, found %s", describe(n))
		return
	}
	kn := mapValue(n, "kind")
	var k *Kind
	switch {
	case kn == nil:
		d.errAt(n, path, "kind is required; known kinds: %s", strings.Join(KindNames(), ", "))
	case kn.Kind != yaml.ScalarNode || kn.Tag != "!!str":
		d.errAt(kn, joinPath(path, "kind"), "expected a string, found %s; known kinds: %s", describe(kn), strings.Join(KindNames(), ", "))
	default:
		var ok bool
		k, ok = LookupKind(kn.Value)
		if !ok {
			d.errAt(kn, joinPath(path, "kind"), "unknown operation kind %q; known kinds: %s", truncate(kn.Value, 40), strings.Join(KindNames(), ", "))
		}
	}
	targets := []reflect.Value{reflect.ValueOf(g).Elem()}
	if k != nil && k.Params != nil {
		g.Params = k.Params()
		targets = append(targets, reflect.ValueOf(g.Params).Elem())
	}
	d.decodeStruct(n, path, targets, k == nil)
}

// MarshalJSON writes the generator as one flat mapping, as in a file:
// common keys, then the kind's parameters.
func (g Generator) MarshalJSON() ([]byte, error) {
	type plain Generator
	a, err := json.Marshal(plain(g))
	if err != nil || g.Params == nil {
		return a, err
	}
	b, err := json.Marshal(g.Params)
	if err != nil {
		return nil, err
	}
	if len(b) <= 2 {
		return a, nil
	}
	var out bytes.Buffer
	out.Write(a[:len(a)-1])
	out.WriteByte(',')
	out.Write(b[1:])
	return out.Bytes(), nil
}

func (a *Adapter) decodeYAML(d *decoder, n *yaml.Node, path, _ string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping of keys, found %s", describe(n))
		return
	}
	name := DefaultPreset
	if pn := mapValue(n, "preset"); pn != nil {
		pp := joinPath(path, "preset")
		d.nodes[pp] = pn
		if pn.Kind != yaml.ScalarNode || pn.Tag != "!!str" {
			d.errAt(pn, pp, "expected a preset name, found %s; known presets: %s", describe(pn), presetList())
			return
		}
		name = pn.Value
	}
	p, ok := PresetByName(name)
	if !ok {
		d.errAt(mapValue(n, "preset"), joinPath(path, "preset"), "unknown preset %q; known presets: %s", truncate(name, 40), presetList())
		return
	}
	*a = p.Adapter
	before := len(d.errs)
	d.decodeStruct(n, path, []reflect.Value{reflect.ValueOf(a).Elem()}, false, "preset")
	a.Preset = name
	a.syncTPT()
	if len(d.errs) == before {
		a.checkModels(d, path)
	}
}

// Override is one dotted-path assignment (from --set or a sweep point).
type Override struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

func itoa(i int) string { return strconv.Itoa(i) }
