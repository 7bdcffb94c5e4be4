package results

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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

// WritePlots draws each metric of ps against the X axis, each generator's
// latency CDF at every point and the time series, as PNG and SVG in dir,
// and returns the files written. A result without a sweep has no metric
// plots. The figures are drawn together (saveAll); when one cannot be
// made, those before it are still written and its error returned.
func WritePlots(dir string, r *Result, ps PlotSpec) ([]string, error) {
	jobs, err := metricJobs(r, ps)
	if err == nil {
		var cdf []plotJob
		cdf, err = cdfJobs(r)
		jobs = append(jobs, cdf...)
	}
	if err == nil {
		jobs = append(jobs, timeseriesJobs(r)...)
	}
	files, serr := saveAll(dir, jobs)
	return files, cmp.Or(serr, err)
}

// metricJobs are the figures of each metric of ps against the X axis, up
// to the first that cannot be made, and its error.
func metricJobs(r *Result, ps PlotSpec) ([]plotJob, error) {
	if len(r.Sweep) == 0 || len(r.Points) < 2 {
		return nil, nil
	}
	x := ps.X
	if x == "" {
		x = r.Sweep[0].Path
	}
	var jobs []plotJob
	for _, name := range ps.Metrics {
		m, _ := plotMetric(name)
		f, err := metricPlot(r, x, &m)
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, plotJob{f, name + plotVersus + sanitize(x), 4.5 * vg.Inch})
	}
	return jobs, nil
}

// figure is a plot with its legend, which is drawn to the right of the
// data area, never over it.
type figure struct {
	p      *plot.Plot
	legend plot.Legend
	curves int
}

func newFigure(title, x, y string) *figure {
	f := &figure{p: plot.New(), legend: plot.NewLegend()}
	f.p.Title.Text, f.p.X.Label.Text, f.p.Y.Label.Text = title, x, y
	f.legend.Top, f.legend.Left = true, true
	f.legend.TextStyle.Font.Size = vg.Points(9)
	return f
}

// add adds a curve (its plotters and legend thumbnails) under name; past
// PlotCurvesMax curves it only counts it, and save says how many were
// left out.
func (f *figure) add(name string, ps ...plot.Plotter) bool {
	f.curves++
	if f.curves > PlotCurvesMax {
		return false
	}
	f.p.Add(ps...)
	var th []plot.Thumbnailer
	for _, x := range ps {
		if t, ok := x.(plot.Thumbnailer); ok {
			th = append(th, t)
		}
	}
	f.legend.Add(name, th...)
	return true
}

// PlotCurvesMax is the most curves drawn in one plot (every one with its
// own colour and dash pattern); further curves are counted in the legend.
const PlotCurvesMax = 40

// legendWidth is the width of the legend column to the right of the data.
func (f *figure) legendWidth() vg.Length {
	if f.curves > PlotCurvesMax {
		f.legend.Add(fmt.Sprintf("(%d more curves not drawn)", f.curves-PlotCurvesMax))
		f.curves = PlotCurvesMax
	}
	r := f.legend.Rectangle(draw.Canvas{})
	return r.Max.X - r.Min.X + 0.2*vg.Inch
}

// palette is 10 colours told apart by most readers (Tableau 10); with 4
// dash patterns they give 40 distinct curve styles.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// curveStyle is the line style of curve i: colour i mod 10, dash pattern
// i/10.
func curveStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.2), Dashes: dashes[(i/len(palette))%len(dashes)]}
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

func metricPlot(r *Result, x string, m *Metric) (*figure, error) {
	xa := newXAxis(r, x)
	s := metricSeries(r, xa, m)
	f := newFigure(fmt.Sprintf("%s: %s vs %s", r.Workload, m.Label, x), x, m.Label)
	if xa.numeric && logScaled(xa.nums) {
		logAxis(&f.p.X)
	}
	if !xa.numeric {
		f.p.NominalX(xa.values...)
	}
	var ys []float64
	for _, name := range s.order {
		for _, xy := range s.xy[name] {
			ys = append(ys, xy.Y)
		}
	}
	if logScaled(ys) {
		logAxis(&f.p.Y)
	}
	for i, name := range s.order {
		pts := s.xy[name]
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s, series %s: %w", m.Name, name, err)
		}
		l.LineStyle = curveStyle(i)
		sc.Color = palette[i%len(palette)]
		sc.Shape = plotutil.Shape(i / len(palette))
		f.add(name, l, sc)
	}
	return f, nil
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

// cdfJobs are the figures of each generator's latency CDF of every point
// (one curve per point), up to the first that cannot be made, and its
// error.
func cdfJobs(r *Result) ([]plotJob, error) {
	if len(r.Points) == 0 {
		return nil, nil
	}
	var jobs []plotJob
	for gi := range r.Points[0].Generators {
		gen := r.Points[0].Generators[gi].Name
		f, err := cdfPlot(r, gen)
		if err != nil {
			return jobs, err
		}
		if f.curves > 0 {
			jobs = append(jobs, plotJob{f, plotCDFPrefix + sanitize(gen), 4.5 * vg.Inch})
		}
	}
	return jobs, nil
}

// cdfPlot is the latency CDF of generator gen at every point that has
// one, drawn from its histogram: within a bucket the curve rises
// linearly from the bucket's low to its high edge, so every step of the
// distribution is where the samples were.
func cdfPlot(r *Result, gen string) (*figure, error) {
	f := newFigure(fmt.Sprintf("%s: latency CDF of %s", r.Workload, gen), "latency (ns)", "fraction of operations")
	var all []float64
	for pi := range r.Points {
		pt := &r.Points[pi]
		g := pt.generator(gen)
		if g == nil || g.LatencyNS.BucketsPS == "" {
			continue
		}
		xy, err := cdfCurve(&g.LatencyNS)
		if err != nil {
			return nil, fmt.Errorf("CDF plot %s, %s: %w", gen, pt.legend(gen), err)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("CDF plot %s: %w", gen, err)
		}
		l.LineStyle = curveStyle(f.curves)
		f.add(pt.legend(gen), l)
		for _, p := range xy {
			all = append(all, p.X)
		}
	}
	if logScaled(all) {
		logAxis(&f.p.X)
	}
	f.p.Y.Min, f.p.Y.Max = 0, 1
	return f, nil
}

// cdfCurve is the CDF of a latency's buckets, in nanoseconds: for each
// bucket the fraction below its low and its high edge.
func cdfCurve(l *Latency) (plotter.XYs, error) {
	bs, err := l.Buckets()
	if err != nil {
		return nil, err
	}
	var total, seen uint64
	for _, b := range bs {
		total += b.Count
	}
	xy := make(plotter.XYs, 0, 2*len(bs))
	for _, b := range bs {
		xy = append(xy, plotter.XY{X: math.Max(float64(b.LoPS)/1e3, 1e-3), Y: float64(seen) / float64(total)})
		seen += b.Count
		xy = append(xy, plotter.XY{X: float64(b.HiPS) / 1e3, Y: float64(seen) / float64(total)})
	}
	return xy, nil
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
