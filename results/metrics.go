package results

// Better says which way a metric improves.
type Better int

// Directions of improvement.
const (
	LowerIsBetter Better = iota
	HigherIsBetter
	Neutral // reported, never a regression
)

func (b Better) String() string {
	switch b {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return "neutral"
}

// Metric is one figure of a run that nicsim compares (with its default
// relative threshold in percent), plots and writes in the Go benchmark
// format. Results are deterministic, so any change is a model change; the
// thresholds say how much change is accepted.
type Metric struct {
	Name         string
	Unit         string
	Better       Better
	ThresholdPct float64
	PerGenerator bool // false: one value per point
	// Label is the metric's axis label in sweep plots; "" when it is not
	// plotted.
	Label string
	// BenchUnit is its unit in the Go benchmark format; "" when it is not
	// written there.
	BenchUnit string
	gen       func(*GenResult) float64
	point     func(*PointResult) float64
}

// Value is the metric of generator g of point p, or of p itself for a
// per-point metric.
func (m *Metric) Value(p *PointResult, g *GenResult) float64 {
	if m.PerGenerator {
		return m.gen(g)
	}
	return m.point(p)
}

// Metrics are the figures nicsim compares, in report order. A new metric
// is one row here: compare, regress, the plots and the benchmark format
// pick it up.
var Metrics = []Metric{
	{Name: "throughput_mops", Unit: "Mops/s", Better: HigherIsBetter, ThresholdPct: 2, PerGenerator: true,
		Label: "throughput (Mops/s)", BenchUnit: "Mops/s", gen: func(g *GenResult) float64 { return g.ThroughputMops }},
	{Name: "goodput_gbps", Unit: "Gb/s", Better: HigherIsBetter, ThresholdPct: 2, PerGenerator: true,
		Label: "goodput (Gb/s)", BenchUnit: "Gb/s", gen: func(g *GenResult) float64 { return g.GoodputGbps }},
	{Name: "latency_ns_mean", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 2, PerGenerator: true,
		Label: "mean latency (ns)", BenchUnit: "mean-ns", gen: func(g *GenResult) float64 { return g.LatencyNS.Mean }},
	{Name: "latency_ns_p50", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 2, PerGenerator: true,
		Label: "p50 latency (ns)", BenchUnit: "p50-ns", gen: func(g *GenResult) float64 { return g.LatencyNS.P50 }},
	{Name: "latency_ns_p99", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 5, PerGenerator: true,
		Label: "p99 latency (ns)", BenchUnit: "p99-ns", gen: func(g *GenResult) float64 { return g.LatencyNS.P99 }},
	{Name: "latency_ns_p999", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 10, PerGenerator: true,
		Label: "p99.9 latency (ns)", BenchUnit: "p999-ns", gen: func(g *GenResult) float64 { return g.LatencyNS.P999 }},
	{Name: "latency_ns_max", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 20, PerGenerator: true,
		BenchUnit: "max-ns", gen: func(g *GenResult) float64 { return g.LatencyNS.Max }},
	{Name: "failed", Unit: "ops", Better: LowerIsBetter, ThresholdPct: 0, PerGenerator: true,
		BenchUnit: "failed-ops", gen: func(g *GenResult) float64 { return float64(g.Failed) }},
	{Name: "mpt_hit_rate", Unit: "ratio", Better: HigherIsBetter, ThresholdPct: 1,
		Label: "MPT cache hit rate", point: func(p *PointResult) float64 { return p.MTT.MPTHitRate }},
	{Name: "mtt_hit_rate", Unit: "ratio", Better: HigherIsBetter, ThresholdPct: 1,
		Label: "MTT cache hit rate", point: func(p *PointResult) float64 { return p.MTT.MTTHitRate }},
	{Name: "pcie_up_utilization", Unit: "ratio", Better: Neutral,
		Label: "PCIe utilisation NIC->host", point: func(p *PointResult) float64 { return p.PCIe.UpUtilization }},
	{Name: "pcie_down_utilization", Unit: "ratio", Better: Neutral,
		Label: "PCIe utilisation host->NIC", point: func(p *PointResult) float64 { return p.PCIe.DownUtilization }},
}

// MetricByName returns the named metric.
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// MetricNames lists the metrics' names in report order.
func MetricNames() []string {
	out := make([]string, len(Metrics))
	for i, m := range Metrics {
		out[i] = m.Name
	}
	return out
}
