package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

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

// Metric is one compared figure of a run, with its default relative
// threshold in percent. Results are deterministic, so any change is a model
// change; the thresholds say how much change is accepted.
type Metric struct {
	Name         string
	Unit         string
	Better       Better
	ThresholdPct float64
	PerGenerator bool // false: one value per point
	gen          func(*GenResult) float64
	point        func(*PointResult) float64
}

// CompareMetrics are the figures nicsim compare checks, in report order.
var CompareMetrics = []Metric{
	{Name: "throughput_mops", Unit: "Mops/s", Better: HigherIsBetter, ThresholdPct: 2, PerGenerator: true, gen: func(g *GenResult) float64 { return g.ThroughputMops }},
	{Name: "goodput_gbps", Unit: "Gb/s", Better: HigherIsBetter, ThresholdPct: 2, PerGenerator: true, gen: func(g *GenResult) float64 { return g.GoodputGbps }},
	{Name: "latency_ns_mean", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 2, PerGenerator: true, gen: func(g *GenResult) float64 { return g.LatencyNS.Mean }},
	{Name: "latency_ns_p50", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 2, PerGenerator: true, gen: func(g *GenResult) float64 { return g.LatencyNS.P50 }},
	{Name: "latency_ns_p99", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 5, PerGenerator: true, gen: func(g *GenResult) float64 { return g.LatencyNS.P99 }},
	{Name: "latency_ns_p999", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 10, PerGenerator: true, gen: func(g *GenResult) float64 { return g.LatencyNS.P999 }},
	{Name: "latency_ns_max", Unit: "ns", Better: LowerIsBetter, ThresholdPct: 20, PerGenerator: true, gen: func(g *GenResult) float64 { return g.LatencyNS.Max }},
	{Name: "failed", Unit: "ops", Better: LowerIsBetter, ThresholdPct: 0, PerGenerator: true, gen: func(g *GenResult) float64 { return float64(g.Failed) }},
	{Name: "mpt_hit_rate", Unit: "ratio", Better: HigherIsBetter, ThresholdPct: 1, point: func(p *PointResult) float64 { return p.MTT.MPTHitRate }},
	{Name: "mtt_hit_rate", Unit: "ratio", Better: HigherIsBetter, ThresholdPct: 1, point: func(p *PointResult) float64 { return p.MTT.MTTHitRate }},
	{Name: "pcie_up_utilization", Unit: "ratio", Better: Neutral, point: func(p *PointResult) float64 { return p.PCIe.UpUtilization }},
	{Name: "pcie_down_utilization", Unit: "ratio", Better: Neutral, point: func(p *PointResult) float64 { return p.PCIe.DownUtilization }},
}

// MetricByName returns the named compare metric.
func MetricByName(name string) (Metric, bool) {
	for _, m := range CompareMetrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// ParseThreshold parses a "metric=percent" override, such as
// "latency_ns_p99=10" or "latency_ns_p99=10%".
func ParseThreshold(s string) (string, float64, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return "", 0, fmt.Errorf("threshold %q: want metric=percent, e.g. latency_ns_p99=10", s)
	}
	if _, known := MetricByName(name); !known {
		return "", 0, fmt.Errorf("threshold %q: unknown metric %q; known: %s", s, name, strings.Join(metricNames(), ", "))
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
	if err != nil || v < 0 || v > 1000 || math.IsNaN(v) {
		return "", 0, fmt.Errorf("threshold %q: %q is not a percentage in 0..1000", s, val)
	}
	return name, v, nil
}

func metricNames() []string {
	out := make([]string, len(CompareMetrics))
	for i, m := range CompareMetrics {
		out[i] = m.Name
	}
	return out
}

// Verdict is the outcome for one compared figure.
type Verdict string

// Verdicts.
const (
	Unchanged  Verdict = "unchanged"
	Within     Verdict = "within"
	Improved   Verdict = "improved"
	Regression Verdict = "REGRESSION"
	Missing    Verdict = "MISSING"
	Added      Verdict = "added"
)

// Change is one figure of one point (and generator) in both runs.
type Change struct {
	Point        string  `json:"point"`
	Generator    string  `json:"generator,omitempty"`
	Metric       string  `json:"metric"`
	Unit         string  `json:"unit"`
	Base         float64 `json:"base"`
	New          float64 `json:"new"`
	ChangePct    float64 `json:"change_pct"` // +Inf/-Inf when the base is 0
	ThresholdPct float64 `json:"threshold_pct"`
	Verdict      Verdict `json:"verdict"`
}

// Comparison is the outcome of comparing two results.
type Comparison struct {
	Changes     []Change
	Regressions int
	Improved    int
	Missing     int
	Added       int
}

// Regressed reports whether anything got worse beyond its threshold or
// disappeared.
func (c *Comparison) Regressed() bool { return c.Regressions > 0 || c.Missing > 0 }

// CompareResults compares new against base, figure by figure. Points are
// matched by label (or position when unlabelled), generators by name.
// thresholds overrides CompareMetrics' defaults by metric name.
func CompareResults(base, cur *Result, thresholds map[string]float64) (*Comparison, error) {
	if base.Partial || cur.Partial {
		return nil, errors.New("a partial result (interrupted or cut short) cannot be compared; rerun it to completion")
	}
	c := &Comparison{}
	curPts := map[string]*PointResult{}
	for i := range cur.Points {
		curPts[pointKey(&cur.Points[i], i)] = &cur.Points[i]
	}
	seen := map[string]bool{}
	for i := range base.Points {
		bp := &base.Points[i]
		key := pointKey(bp, i)
		seen[key] = true
		np, ok := curPts[key]
		if !ok {
			c.add(Change{Point: key, Metric: "point", Verdict: Missing})
			continue
		}
		for _, m := range CompareMetrics {
			if m.PerGenerator {
				continue
			}
			c.add(judge(key, "", m, m.point(bp), m.point(np), thresholds))
		}
		newGens := map[string]*GenResult{}
		for j := range np.Generators {
			newGens[np.Generators[j].Name] = &np.Generators[j]
		}
		baseGens := map[string]bool{}
		for j := range bp.Generators {
			bg := &bp.Generators[j]
			baseGens[bg.Name] = true
			ng, ok := newGens[bg.Name]
			if !ok {
				c.add(Change{Point: key, Generator: bg.Name, Metric: "generator", Verdict: Missing})
				continue
			}
			for _, m := range CompareMetrics {
				if m.PerGenerator {
					c.add(judge(key, bg.Name, m, m.gen(bg), m.gen(ng), thresholds))
				}
			}
		}
		for j := range np.Generators {
			if !baseGens[np.Generators[j].Name] {
				c.add(Change{Point: key, Generator: np.Generators[j].Name, Metric: "generator", Verdict: Added})
			}
		}
	}
	for i := range cur.Points {
		if key := pointKey(&cur.Points[i], i); !seen[key] {
			c.add(Change{Point: key, Metric: "point", Verdict: Added})
		}
	}
	return c, nil
}

func (c *Comparison) add(ch Change) {
	c.Changes = append(c.Changes, ch)
	switch ch.Verdict {
	case Regression:
		c.Regressions++
	case Improved:
		c.Improved++
	case Missing:
		c.Missing++
	case Added:
		c.Added++
	}
}

func pointKey(p *PointResult, i int) string {
	if p.Label != "" {
		return p.Label
	}
	if i == 0 {
		return "run"
	}
	return fmt.Sprintf("point[%d]", i)
}

func judge(point, gen string, m Metric, base, cur float64, thresholds map[string]float64) Change {
	th := m.ThresholdPct
	if v, ok := thresholds[m.Name]; ok {
		th = v
	}
	ch := Change{Point: point, Generator: gen, Metric: m.Name, Unit: m.Unit, Base: base, New: cur, ThresholdPct: th}
	switch {
	case base == cur:
		ch.Verdict = Unchanged
		return ch
	case base == 0:
		ch.ChangePct = math.Copysign(math.Inf(1), cur)
	default:
		ch.ChangePct = (cur - base) / math.Abs(base) * 100
	}
	worse := ch.ChangePct > th
	better := ch.ChangePct < -th
	if m.Better == HigherIsBetter {
		worse, better = ch.ChangePct < -th, ch.ChangePct > th
	}
	switch {
	case m.Better == Neutral:
		ch.Verdict = Within
	case worse:
		ch.Verdict = Regression
	case better:
		ch.Verdict = Improved
	default:
		ch.Verdict = Within
	}
	return ch
}

// ReadResult reads a results.json, given as the file or the run folder
// holding it.
func ReadResult(path string) (*Result, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var r Result
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "unknown field") {
			hint = " (written by another nicsim version? rerun it, or remake baselines with make baselines)"
		}
		return nil, fmt.Errorf("%s: not a results.json this nicsim reads: %v%s", path, err, hint)
	}
	if len(r.Points) == 0 {
		return nil, fmt.Errorf("%s: results hold no points", path)
	}
	return &r, nil
}

// SortedThresholdNames lists overridden thresholds in a fixed order.
func SortedThresholdNames(th map[string]float64) []string {
	names := make([]string, 0, len(th))
	for n := range th {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
