package results

import (
	"fmt"
	"strings"

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
	WindowPS   uint64      `json:"window_ps" csv:"point_window_ps"`
	Events     uint64      `json:"events"`
	Generators []GenResult `json:"generators"`
	PCIe       LinkResult  `json:"pcie"`
	MTT        TPTResult   `json:"mtt" csv:",inline"`
	// Utilisation is every resource's busy fraction over the measured
	// window, in name order (every sim.Meter of the model).
	Utilisation []ResourceUse   `json:"utilisation"`
	Stats       []sim.StatValue `json:"stats"`
	// Series is what happened per interval, warm-up included
	// (timeseries.csv); baselines leave it out.
	Series *Series `json:"series,omitempty"`
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
	ThroughputMops float64       `json:"throughput_mops" nodata:"window_ps"` // successful completions inside the window / window
	// MovesPayload says the kind's operations move payload over the wire or
	// PCIe (goodput); registrations, binds and translations do not, and
	// report a Figure of their own instead.
	MovesPayload bool    `json:"moves_payload"`
	GoodputGbps  float64 `json:"goodput_gbps" nodata:"window_ps,moves_payload"` // payload bytes of successful operations / window
	LatencyNS    Latency `json:"latency_ns"`                                    // successful operations, arrival to completion
	// Figure is the kind's own rate when its operations move no payload
	// (registrations: pages registered per second).
	Figure Figure `json:"figure,omitzero"`
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

// Figure is a kind's own rate, under its own name and unit; zero for the
// kinds that move payload.
type Figure struct {
	Name  string  `json:"name"` // e.g. registered_pages
	Unit  string  `json:"unit"` // e.g. Mpages/s
	Value float64 `json:"value" nodata:"name"`
}

// ResourceUse is one resource's busy fraction over the measured window:
// busy unit-time over capacity x window (sim.Meter).
type ResourceUse struct {
	Name        string  `json:"name"`
	Unit        string  `json:"unit"`
	Capacity    uint64  `json:"capacity"`
	Utilisation float64 `json:"utilisation"`
	// Waited, for a pool whose owner reports waits (sim.Meter.Waits), is
	// the fraction of the window in which a request waited for one of its
	// units; absent for the others. A pool that reads full with no request
	// waiting holds nothing back.
	Waited *float64 `json:"waited,omitempty"`
}

// BoundBy is what limits a generator. Resource is BoundFailures when more
// of its window's completions failed than succeeded, BoundRNRWait when its
// QPs spent at least half the window held by RNR NAKs, BoundOfferedLoad for
// an open loop that kept up with its arrivals (none dropped, its backlog
// not grown over the window), else a meter's name when one of the
// resources it uses is busy at least BoundUtilisationMin of the window
// (a pool that reports its waits only if they reach BoundWaitMin),
// else BoundWindow (the operations it keeps in flight set the rate, by
// Little's law). Busiest names the busiest resource for reference when
// Resource is not one. Also names, busiest first, the other resources the
// generator can use that are saturated with Resource: busy at least
// BoundUtilisationMin and within CoBoundMargin of Resource's utilisation;
// servers, and pools that requests waited for (BoundWaitMin) whose units
// are not held across Resource (sim.Meter.BindsBeside).
// Relieving Resource alone moves the rate little while one of them stays
// saturated; relieve them together.
type BoundBy struct {
	Resource    string   `json:"resource"`
	Utilisation float64  `json:"utilisation"` // of Resource, or of Busiest
	Busiest     string   `json:"busiest,omitempty"`
	Also        []string `json:"also,omitempty" csv:"also,join"`
}

// What BoundBy.Resource says when it names no resource.
const (
	BoundWindow      = "window"
	BoundOfferedLoad = "offered_load"
	BoundFailures    = "failures"
	// BoundRNRWait: the generator's QPs spent at least half the window
	// held by RNR NAKs, their Sends waiting for receives at the peer.
	BoundRNRWait = "rnr_wait"
	// BoundUtilisationMin is how busy a resource must be to bind.
	BoundUtilisationMin = 0.9
	// BoundWaitMin is, for a pool that reports its waits
	// (ResourceUse.Waited), the least fraction of the window in which a
	// request waited for one of its units for the pool to bind: a pool
	// that binds a closed loop has a request waiting nearly all the time,
	// one that only reads full (its units come back just before they are
	// asked for again) seldom.
	BoundWaitMin = 0.5
	// CoBoundMargin is how close to the named resource's utilisation
	// another must be to be named beside it (BoundBy.Also): 3 percentage
	// points, a reporting threshold. Over a window of a few hundred
	// microseconds two resources that both limit a rate read within a
	// point or two of each other (a link and the buffer that fills in front
	// of it, two caches' ports), and relieving either alone gives a few
	// percent at most.
	CoBoundMargin = 0.03
)

// String is the bound as the summary table shows it.
func (b BoundBy) String() string {
	switch b.Resource {
	case "":
		return "-"
	case BoundWindow, BoundOfferedLoad, BoundFailures, BoundRNRWait:
		if b.Busiest == "" {
			return b.Resource
		}
		return fmt.Sprintf("%s (%s %.0f%%)", b.Resource, b.Busiest, 100*b.Utilisation)
	}
	s := fmt.Sprintf("%s %.0f%%", b.Resource, 100*b.Utilisation)
	if len(b.Also) > 0 {
		s += " (also " + strings.Join(b.Also, ", ") + ")"
	}
	return s
}

// ReasonCount counts failures of one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  uint64 `json:"count"`
}

// Latency summarises a latency histogram in nanoseconds, to the
// picosecond. Without samples every figure but Count is "no data" (empty
// in results.csv).
type Latency struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean" round:"3" nodata:"count"`
	Min   float64 `json:"min" round:"3" nodata:"count"`
	P50   float64 `json:"p50" round:"3" nodata:"count"`
	P99   float64 `json:"p99" round:"3" nodata:"count"`
	P999  float64 `json:"p999" round:"3" nodata:"count"`
	Max   float64 `json:"max" round:"3" nodata:"count"`
	// BucketsPS is the histogram itself, for CDF plots: space-separated
	// "lo,hi,count" triples, each count samples in [lo, hi) picoseconds,
	// in increasing order, at most LatencyBucketsMax of them; empty
	// without samples.
	BucketsPS string `json:"buckets_ps,omitempty" csv:"-"`
}

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
// Hit rate = hits / (hits + misses + merged misses); 0 without lookups
// (empty in results.csv: no data).
type TPTResult struct {
	MPTLookups uint64  `json:"mpt_lookups"`
	MPTHitRate float64 `json:"mpt_hit_rate" nodata:"mpt_lookups"`
	MTTLookups uint64  `json:"mtt_lookups"`
	MTTHitRate float64 `json:"mtt_hit_rate" nodata:"mtt_lookups"`
}

// NewLatency summarises a latency histogram in picoseconds as nanoseconds,
// with its buckets when it has samples.
func NewLatency(h *sim.Histogram) Latency {
	s := h.Summarize()
	ns := func(v float64) float64 { return roundFloat(v/1e3, 3) }
	return Latency{Count: s.Count, Mean: ns(s.Mean), Min: ns(float64(s.Min)), P50: ns(s.P50), P99: ns(s.P99),
		P999: ns(s.P999), Max: ns(float64(s.Max)), BucketsPS: encodeBuckets(h)}
}
