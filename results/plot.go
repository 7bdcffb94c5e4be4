package results

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/nicsim/nicsim/workloads"
)

// PlotSpec says what to draw of a sweep: metrics against the sweep axis X
// (default the first axis), one line per generator and per combination of
// the other axes.
type PlotSpec struct {
	X       string
	Metrics []string
}

// DefaultPlotMetrics are plotted when a sweep names none.
var DefaultPlotMetrics = []string{"throughput_mops", "latency_ns_p99"}

// PlotMetricNames lists the metrics a plot can show (those with a Label),
// sorted.
func PlotMetricNames() []string {
	var out []string
	for _, m := range Metrics {
		if m.Label != "" {
			out = append(out, m.Name)
		}
	}
	sort.Strings(out)
	return out
}

// plotMetric is the named metric when it can be plotted.
func plotMetric(name string) (Metric, bool) {
	m, ok := MetricByName(name)
	return m, ok && m.Label != ""
}

// CheckPlotSpec validates a plot spec against a sweep's axes.
func CheckPlotSpec(ps PlotSpec, axes []workloads.SweepAxis) error {
	if ps.X != "" {
		found := false
		for _, a := range axes {
			found = found || a.Path == ps.X
		}
		if !found {
			var names []string
			for _, a := range axes {
				names = append(names, a.Path)
			}
			return fmt.Errorf("--x %q is not an axis of the sweep (axes: %s)", ps.X, strings.Join(names, ", "))
		}
	}
	for _, m := range ps.Metrics {
		if _, ok := plotMetric(m); !ok {
			return fmt.Errorf("--metric %q is not one of %s", m, strings.Join(PlotMetricNames(), ", "))
		}
	}
	return nil
}

// WritePlots draws each metric of ps against the X axis, and each
// generator's latency CDF at every point, as PNG and SVG in dir, and
// returns the files written. A result without a sweep has no metric plots.
func WritePlots(dir string, r *Result, ps PlotSpec) ([]string, error) {
	files, err := writeMetricPlots(dir, r, ps)
	if err != nil {
		return files, err
	}
	cdf, err := writeCDFPlots(dir, r)
	return append(files, cdf...), err
}

func writeMetricPlots(dir string, r *Result, ps PlotSpec) ([]string, error) {
	if len(r.Sweep) == 0 || len(r.Points) < 2 {
		return nil, nil
	}
	x := ps.X
	if x == "" {
		x = r.Sweep[0].Path
	}
	var files []string
	for _, name := range ps.Metrics {
		m, _ := plotMetric(name)
		p, err := metricPlot(r, x, &m)
		if err != nil {
			return files, err
		}
		saved, err := save(p, dir, fmt.Sprintf("%s-vs-%s", name, sanitize(x)), 4.5*vg.Inch)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// save writes p as stem.png and stem.svg in dir, 7 inches wide.
func save(p *plot.Plot, dir, stem string, height vg.Length) ([]string, error) {
	var files []string
	for _, ext := range []string{"png", "svg"} {
		name := filepath.Join(dir, stem+"."+ext)
		if err := p.Save(7*vg.Inch, height, name); err != nil {
			return files, fmt.Errorf("plot %s: %w", name, err)
		}
		files = append(files, name)
	}
	return files, nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '=' {
			return '_'
		}
		return r
	}, s)
}

// xAxis is the sweep axis a plot's x shows: its values, numeric when every
// value parses (else nominal, at their positions).
type xAxis struct {
	path    string
	values  []string
	nums    []float64
	numeric bool
	index   map[string]int
}

func newXAxis(r *Result, x string) *xAxis {
	a := &xAxis{path: x, numeric: true, index: map[string]int{}}
	for _, ax := range r.Sweep {
		if ax.Path == x {
			a.values = ax.Values
		}
	}
	a.nums = make([]float64, len(a.values))
	for i, v := range a.values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			a.numeric = false
			break
		}
		a.nums[i] = f
	}
	for i, v := range a.values {
		a.index[v] = i
	}
	return a
}

// at is the x of a point's value of the axis; false when the point has
// none.
func (a *xAxis) at(v string) (float64, bool) {
	i, ok := a.index[v]
	if !ok {
		return 0, false
	}
	if a.numeric {
		return a.nums[i], true
	}
	return float64(i), true
}

// plotSeries are a plot's lines by name, in order of first appearance.
type plotSeries struct {
	order []string
	xy    map[string]plotter.XYs
}

func (s *plotSeries) add(name string, xy plotter.XY) {
	if _, seen := s.xy[name]; !seen {
		s.order = append(s.order, name)
	}
	s.xy[name] = append(s.xy[name], xy)
}

// metricSeries collects m against x: one line per generator (one per point
// for a per-point metric) and per combination of the other axes.
func metricSeries(r *Result, x *xAxis, m *Metric) *plotSeries {
	s := &plotSeries{xy: map[string]plotter.XYs{}}
	for pi := range r.Points {
		pt := &r.Points[pi]
		xv, rest := "", []string{}
		for _, o := range pt.Point {
			if o.Path == x.path {
				xv = o.Value
			} else {
				rest = append(rest, shortPath(o.Path)+"="+o.Value)
			}
		}
		xf, ok := x.at(xv)
		if !ok {
			continue
		}
		for gi := range pt.Generators {
			g := &pt.Generators[gi]
			var parts []string
			if m.PerGenerator && len(pt.Generators) > 1 {
				parts = append(parts, g.Name)
			}
			name := strings.Join(append(parts, rest...), " ")
			if name == "" {
				name = g.Name
			}
			s.add(name, plotter.XY{X: xf, Y: m.Value(pt, g)})
			if !m.PerGenerator {
				break
			}
		}
	}
	return s
}

func metricPlot(r *Result, x string, m *Metric) (*plot.Plot, error) {
	xa := newXAxis(r, x)
	s := metricSeries(r, xa, m)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s vs %s", r.Workload, m.Label, x)
	p.X.Label.Text = x
	p.Y.Label.Text = m.Label
	p.Legend.Top, p.Legend.Left = false, true
	if xa.numeric && logScaled(xa.nums) {
		logAxis(&p.X)
	}
	if !xa.numeric {
		p.NominalX(xa.values...)
	}
	var ys []float64
	for _, name := range s.order {
		for _, xy := range s.xy[name] {
			ys = append(ys, xy.Y)
		}
	}
	if logScaled(ys) {
		logAxis(&p.Y)
	}
	for i, name := range s.order {
		pts := s.xy[name]
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s, series %s: %w", m.Name, name, err)
		}
		l.Color = plotutil.Color(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		p.Legend.Add(name, l, sc)
	}
	return p, nil
}

func logAxis(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = plot.LogTicks{Prec: -1}
}

// shortPath keeps the last two elements of a key path for legends:
// adapter.mtt.mtt_cache.entries_max -> mtt_cache.entries_max.
func shortPath(p string) string {
	parts := strings.Split(p, ".")
	if len(parts) <= 2 {
		return p
	}
	return strings.Join(parts[len(parts)-2:], ".")
}

// logScaled says whether positive values span more than two decades.
func logScaled(xs []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range xs {
		if v <= 0 {
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi/lo > 100
}

// writeCDFPlots draws, for each generator, the latency CDF of every point
// (one line per point) as PNG and SVG in dir, and returns the files written.
func writeCDFPlots(dir string, r *Result) ([]string, error) {
	if len(r.Points) == 0 {
		return nil, nil
	}
	var files []string
	for gi := range r.Points[0].Generators {
		gen := r.Points[0].Generators[gi].Name
		p, n, err := cdfPlot(r, gen)
		if err != nil {
			return files, err
		}
		if n == 0 {
			continue
		}
		saved, err := save(p, dir, "latency_cdf-"+sanitize(gen), 4.5*vg.Inch+vg.Length(n)*0.15*vg.Inch)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// cdfPlot is the latency CDF of generator gen at every point that has
// one, and how many lines it has.
func cdfPlot(r *Result, gen string) (*plot.Plot, int, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: latency CDF of %s", r.Workload, gen)
	p.X.Label.Text = "latency (ns)"
	p.Y.Label.Text = "fraction of operations"
	// CDFs rise steeply: the lower middle of the plot is usually empty.
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.XOffs, p.Legend.YOffs = 1.6*vg.Inch, 0.25*vg.Inch
	var all []float64
	n := 0
	for pi := range r.Points {
		pt := &r.Points[pi]
		g := pt.generator(gen)
		if g == nil || len(g.LatencyNS.CDF) == 0 {
			continue
		}
		xy := make(plotter.XYs, len(g.LatencyNS.CDF))
		for i, q := range g.LatencyNS.CDF {
			xy[i] = plotter.XY{X: math.Max(q.NS, 1e-3), Y: q.Q}
			all = append(all, xy[i].X)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, 0, fmt.Errorf("CDF plot %s: %w", gen, err)
		}
		l.Color = plotutil.Color(n)
		l.Dashes = plotutil.Dashes(n / 7)
		p.Add(l)
		p.Legend.Add(pt.legend(gen), l)
		n++
	}
	if logScaled(all) {
		logAxis(&p.X)
	}
	p.Y.Min, p.Y.Max = 0, 1
	return p, n, nil
}

// generator is the point's generator named name (the last of that name),
// or nil.
func (p *PointResult) generator(name string) *GenResult {
	var g *GenResult
	for j := range p.Generators {
		if p.Generators[j].Name == name {
			g = &p.Generators[j]
		}
	}
	return g
}

// legend names a point in a plot's legend by its sweep values, or def
// without a sweep.
func (p *PointResult) legend(def string) string {
	var parts []string
	for _, o := range p.Point {
		parts = append(parts, shortPath(o.Path)+"="+o.Value)
	}
	if name := strings.Join(parts, " "); name != "" {
		return name
	}
	return def
}
