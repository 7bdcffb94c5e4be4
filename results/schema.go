package results

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// Result is everything a run measured. It holds no wall-clock time and no
// map, so the same file and seed give byte-identical JSON.
type Result struct {
	Workload string                `json:"workload"`
	Seed     uint64                `json:"seed"`
	Partial  bool                  `json:"partial"`
	Sweep    []workloads.SweepAxis `json:"sweep,omitempty"`
	Points   []PointResult         `json:"points"`
}

// PointResult is one sweep point (the whole run without a sweep).
type PointResult struct {
	Label string               `json:"label,omitempty"`
	Point []workloads.Override `json:"point,omitempty"`
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
	WindowPS   uint64      `json:"window_ps"`
	Events     uint64      `json:"events"`
	Generators []GenResult `json:"generators"`
	PCIe       LinkResult  `json:"pcie"`
	MTT        TPTResult   `json:"mtt"`
	// Utilisation is every resource's busy fraction over the measured
	// window, in name order (every sim.Meter of the model).
	Utilisation []ResourceUse `json:"utilisation"`
	// TimeseriesIntervalPS is the width of one interval of the resources'
	// Series.
	TimeseriesIntervalPS uint64          `json:"timeseries_interval_ps"`
	Stats                []sim.StatValue `json:"stats"`
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
	// Figure is the kind's own rate when its operations move no data over
	// the wire or PCIe (registrations: pages registered per second); goodput
	// is then 0. nil for the data kinds.
	Figure *Figure `json:"figure,omitempty"`
	// BoundBy says what limits the generator's throughput.
	BoundBy BoundBy `json:"bound_by"`
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

// Figure is a kind's own rate, under its own name and unit.
type Figure struct {
	Name  string  `json:"name"` // e.g. registered_pages
	Unit  string  `json:"unit"` // e.g. Mpages/s
	Value float64 `json:"value"`
}

// ResourceUse is one resource's busy fraction over the measured window:
// busy unit-time over capacity x window (sim.Meter).
type ResourceUse struct {
	Name        string  `json:"name"`
	Unit        string  `json:"unit"`
	Capacity    uint64  `json:"capacity"`
	Utilisation float64 `json:"utilisation"`
	// Series is the busy fraction per interval of TimeseriesIntervalPS
	// (for timeseries.csv; not in results.json).
	Series []float64 `json:"-"`
}

// BoundBy is what limits a generator. Resource is a meter's name when one
// of the resources it uses is busy at least BoundUtilisationMin of the
// window; otherwise it is BoundWindow (closed loop: the operations it keeps
// in flight set the rate, by Little's law) or BoundOfferedLoad (open loop
// below capacity), and Busiest names the busiest resource for reference.
type BoundBy struct {
	Resource    string  `json:"resource"`
	Utilisation float64 `json:"utilisation"` // of Resource, or of Busiest
	Busiest     string  `json:"busiest,omitempty"`
}

// What BoundBy.Resource says when no resource is near saturation.
const (
	BoundWindow      = "window"
	BoundOfferedLoad = "offered_load"
	// BoundUtilisationMin is how busy a resource must be to bind.
	BoundUtilisationMin = 0.9
)

// String is the bound as the summary table shows it.
func (b BoundBy) String() string {
	switch b.Resource {
	case "":
		return "-"
	case BoundWindow, BoundOfferedLoad:
		if b.Busiest == "" {
			return b.Resource
		}
		return fmt.Sprintf("%s (%s %.0f%%)", b.Resource, b.Busiest, 100*b.Utilisation)
	}
	return fmt.Sprintf("%s %.0f%%", b.Resource, 100*b.Utilisation)
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

// NewLatency summarises a latency histogram in picoseconds as nanoseconds,
// with the CDF at CDFLevels when it has samples.
func NewLatency(h *sim.Histogram) Latency {
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
