package validation

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// Metrics a measure can name besides results.Metrics: a generator's
// completed operations in the measured window, and any statistic of the
// point's registry (whole run, setup included) as stat:<name>.
const (
	metricCompleted = "completed"
	statPrefix      = "stat:"
)

// metricNames lists what a measure's metric can be, for messages.
func metricNames() string {
	return strings.Join(append(results.MetricNames(), metricCompleted, statPrefix+"<statistic name>"), ", ")
}

// perGenerator says whether the metric needs a generator; false with ok
// false for an unknown metric.
func perGenerator(metric string) (perGen, ok bool) {
	if metric == metricCompleted {
		return true, true
	}
	if strings.HasPrefix(metric, statPrefix) {
		return false, len(metric) > len(statPrefix)
	}
	m, ok := results.MetricByName(metric)
	return m.PerGenerator, ok
}

// check validates m against the workload it measures and resolves the
// point its `at` picks. path names m in messages.
func (m *Measure) check(d *decoder, w *workloads.File, path string) {
	kinds := 0
	for _, set := range []bool{m.Metric != "", m.Ratio != nil, m.Diff != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		d.errPos(m.pos, path, "give exactly one of metric, ratio, difference")
		return
	}
	if m.Scale != nil && *m.Scale == 0 {
		d.errPos(m.pos, join(path, "scale"), "must not be 0")
	}
	for key, pair := range map[string][]Measure{"ratio": m.Ratio, "difference": m.Diff} {
		if pair == nil {
			continue
		}
		if len(pair) != 2 {
			d.errPos(m.pos, join(path, key), "needs two measures [a, b], found %d", len(pair))
			continue
		}
		for i := range pair {
			pair[i].check(d, w, fmt.Sprintf("%s.%s.%d", path, key, i))
		}
	}
	if m.Metric != "" {
		m.checkMetric(d, w, path)
	}
}

func (m *Measure) checkMetric(d *decoder, w *workloads.File, path string) {
	perGen, ok := perGenerator(m.Metric)
	if !ok {
		d.errPos(m.pos, join(path, "metric"), "unknown metric %q; known: %s", m.Metric, metricNames())
		return
	}
	gens := w.Points[0].Generators
	switch {
	case perGen && m.Generator == "" && len(gens) == 1:
		m.Generator = gens[0].Name
	case perGen && m.Generator == "":
		d.errPos(m.pos, join(path, "generator"), "metric %s is per generator and the workload has %d; name one", m.Metric, len(gens))
	case !perGen && m.Generator != "":
		d.errPos(m.pos, join(path, "generator"), "metric %s is per point; remove generator", m.Metric)
	case perGen:
		name, _, _ := strings.Cut(m.Generator, "/")
		found := false
		for i := range gens {
			found = found || gens[i].Name == name
		}
		if !found {
			d.errPos(m.pos, join(path, "generator"), "no generator %q in the workload", name)
		}
	}
	m.point = pickPoint(d, m.pos, w, m.At, join(path, "at"))
}

// pickPoint finds the one point whose sweep values include every pair of
// at; -1 (and an error) when none or several do.
func pickPoint(d *decoder, n pos, w *workloads.File, at map[string]string, path string) int {
	axes := map[string][]string{}
	for _, a := range w.Sweep {
		axes[a.Path] = a.Values
	}
	keys := make([]string, 0, len(at))
	for k := range at {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals, ok := axes[k]
		if !ok {
			d.errPos(n, join(path, k), "not an axis of the workload's sweep")
			return -1
		}
		if !contains(vals, at[k]) {
			d.errPos(n, join(path, k), "%q is not one of the axis' values %s", at[k], strings.Join(vals, ", "))
			return -1
		}
	}
	found := -1
	for i, p := range w.Points {
		if matches(p.Point, at) {
			if found >= 0 {
				d.errPos(n, path, "picks more than one of the %d sweep points; give a value for every axis", len(w.Points))
				return -1
			}
			found = i
		}
	}
	if found < 0 {
		d.errPos(n, path, "picks none of the sweep points")
	}
	return found
}

func contains(vals []string, v string) bool {
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}

func matches(point []workloads.Override, at map[string]string) bool {
	n := 0
	for _, o := range point {
		if v, ok := at[o.Path]; ok {
			if v != o.Value {
				return false
			}
			n++
		}
	}
	return n == len(at)
}

// value computes m from the results of its workload. NaN means no value
// (for example a ratio over zero).
func (m *Measure) value(r *results.Result) (float64, error) {
	var v float64
	switch {
	case m.Ratio != nil:
		a, b, err := pairValues(m.Ratio, r)
		if err != nil {
			return 0, err
		}
		v = a / b
		if b == 0 {
			v = math.NaN()
		}
	case m.Diff != nil:
		a, b, err := pairValues(m.Diff, r)
		if err != nil {
			return 0, err
		}
		v = a - b
	default:
		var err error
		if v, err = m.metric(r); err != nil {
			return 0, err
		}
	}
	if m.Scale != nil {
		v *= *m.Scale
	}
	return v, nil
}

func pairValues(pair []Measure, r *results.Result) (float64, float64, error) {
	a, err := pair[0].value(r)
	if err != nil {
		return 0, 0, err
	}
	b, err := pair[1].value(r)
	return a, b, err
}

func (m *Measure) metric(r *results.Result) (float64, error) {
	if m.point < 0 || m.point >= len(r.Points) {
		return 0, fmt.Errorf("line %d: the results have no point %d", m.line, m.point)
	}
	p := &r.Points[m.point]
	if name, ok := strings.CutPrefix(m.Metric, statPrefix); ok {
		return statValue(p, name, m.line)
	}
	g, err := generatorOf(p, m.Generator)
	if err != nil {
		return 0, fmt.Errorf("line %d: %w", m.line, err)
	}
	if m.Metric == metricCompleted {
		return float64(g.Completed), nil
	}
	mt, _ := results.MetricByName(m.Metric)
	return mt.Value(p, g), nil
}

// generatorOf finds generator name, or part "gen/part" as a generator
// of its own.
func generatorOf(p *results.PointResult, name string) (*results.GenResult, error) {
	gen, _, isPart := strings.Cut(name, "/")
	for i := range p.Generators {
		g := &p.Generators[i]
		if g.Name != gen {
			continue
		}
		if !isPart {
			return g, nil
		}
		var names []string
		for _, pr := range g.Parts {
			if pr.Name == name {
				return &results.GenResult{Name: pr.Name, Kind: pr.Kind, Completed: pr.Completed, WindowPS: g.WindowPS,
					ThroughputMops: pr.ThroughputMops, LatencyNS: pr.LatencyNS}, nil
			}
			names = append(names, pr.Name)
		}
		return nil, fmt.Errorf("generator %s has no part %q (parts: %s)", gen, name, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("no generator %q in the results", gen)
}

func statValue(p *results.PointResult, name string, line int) (float64, error) {
	for _, s := range p.Stats {
		if s.Name != name {
			continue
		}
		switch {
		case s.Count != nil:
			return float64(*s.Count), nil
		case s.Value != nil:
			return *s.Value, nil
		}
		return 0, fmt.Errorf("line %d: statistic %s is a histogram; name a counter or a formula", line, name)
	}
	return 0, fmt.Errorf("line %d: no statistic %q in the results", line, name)
}

// boundBy is what the results say binds the generator of m's first
// measure that names one (the first of a ratio or difference); zero when
// none does.
func (m *Measure) boundBy(r *results.Result) results.BoundBy {
	switch {
	case m.Ratio != nil:
		return m.Ratio[0].boundBy(r)
	case m.Diff != nil:
		return m.Diff[0].boundBy(r)
	case m.Generator == "" || m.point < 0 || m.point >= len(r.Points):
		return results.BoundBy{}
	}
	gen, _, _ := strings.Cut(m.Generator, "/")
	g, err := generatorOf(&r.Points[m.point], gen)
	if err != nil {
		return results.BoundBy{}
	}
	return g.BoundBy
}
