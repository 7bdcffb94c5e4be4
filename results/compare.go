package results

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParseThreshold parses a "metric=percent" override, such as
// "latency_ns_p99=10" or "latency_ns_p99=10%".
func ParseThreshold(s string) (string, float64, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return "", 0, fmt.Errorf("threshold %q: want metric=percent, e.g. latency_ns_p99=10", s)
	}
	if _, known := MetricByName(name); !known {
		return "", 0, fmt.Errorf("threshold %q: unknown metric %q; known: %s", s, name, strings.Join(MetricNames(), ", "))
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
	if err != nil || v < 0 || v > 1000 || math.IsNaN(v) {
		return "", 0, fmt.Errorf("threshold %q: %q is not a percentage in 0..1000", s, val)
	}
	return name, v, nil
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
		for _, m := range Metrics {
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
			for _, m := range Metrics {
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

// SortedThresholdNames lists overridden thresholds in a fixed order.
func SortedThresholdNames(th map[string]float64) []string {
	names := make([]string, 0, len(th))
	for n := range th {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
