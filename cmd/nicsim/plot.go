package main

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

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// plotSpec says what to draw: metrics against the sweep axis X, one line per
// generator and per combination of the other axes.
type plotSpec struct {
	X       string
	Metrics []string
}

// plotMetrics are the figures a sweep plot can show, with their axis label.
var plotMetrics = map[string]struct {
	label string
	get   func(*results.PointResult, *results.GenResult) float64
}{
	"throughput_mops": {"throughput (Mops/s)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.ThroughputMops }},
	"goodput_gbps":    {"goodput (Gb/s)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.GoodputGbps }},
	"latency_ns_mean": {"mean latency (ns)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.LatencyNS.Mean }},
	"latency_ns_p50":  {"p50 latency (ns)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.LatencyNS.P50 }},
	"latency_ns_p99":  {"p99 latency (ns)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.LatencyNS.P99 }},
	"latency_ns_p999": {"p99.9 latency (ns)", func(_ *results.PointResult, g *results.GenResult) float64 { return g.LatencyNS.P999 }},
	"mtt_hit_rate":    {"MTT cache hit rate", func(p *results.PointResult, _ *results.GenResult) float64 { return p.MTT.MTTHitRate }},
	"mpt_hit_rate":    {"MPT cache hit rate", func(p *results.PointResult, _ *results.GenResult) float64 { return p.MTT.MPTHitRate }},
	"pcie_up_utilization": {"PCIe utilisation NIC->host", func(p *results.PointResult, _ *results.GenResult) float64 {
		return p.PCIe.UpUtilization
	}},
	"pcie_down_utilization": {"PCIe utilisation host->NIC", func(p *results.PointResult, _ *results.GenResult) float64 {
		return p.PCIe.DownUtilization
	}},
}

func plotMetricNames() []string {
	var out []string
	for n := range plotMetrics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// checkPlotSpec validates the plot flags against a sweep's axes.
func checkPlotSpec(ps plotSpec, axes []workloads.SweepAxis) error {
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
		if _, ok := plotMetrics[m]; !ok {
			return fmt.Errorf("--metric %q is not one of %s", m, strings.Join(plotMetricNames(), ", "))
		}
	}
	return nil
}

// writePlots draws each metric against the X axis as PNG and SVG in dir and
// returns the files written. A result without a sweep has nothing to plot.
func writePlots(dir string, r *results.Result, ps plotSpec) ([]string, error) {
	if len(r.Sweep) == 0 || len(r.Points) < 2 {
		return nil, nil
	}
	x := ps.X
	if x == "" {
		x = r.Sweep[0].Path
	}
	var files []string
	for _, m := range ps.Metrics {
		p, err := metricPlot(r, x, m)
		if err != nil {
			return files, err
		}
		for _, ext := range []string{"png", "svg"} {
			name := filepath.Join(dir, fmt.Sprintf("%s-vs-%s.%s", m, sanitize(x), ext))
			if err := p.Save(7*vg.Inch, 4.5*vg.Inch, name); err != nil {
				return files, fmt.Errorf("plot %s: %w", name, err)
			}
			files = append(files, name)
		}
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

func metricPlot(r *results.Result, x, metric string) (*plot.Plot, error) {
	pm := plotMetrics[metric]
	// x values: numeric when every value parses, else nominal.
	var xs []string
	for _, a := range r.Sweep {
		if a.Path == x {
			xs = a.Values
		}
	}
	xnum := make([]float64, len(xs))
	numeric := true
	for i, v := range xs {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			numeric = false
			break
		}
		xnum[i] = f
	}
	xIndex := map[string]int{}
	for i, v := range xs {
		xIndex[v] = i
	}
	series := map[string]plotter.XYs{}
	var order []string
	for pi := range r.Points {
		pt := &r.Points[pi]
		xv, rest := "", []string{}
		for _, o := range pt.Point {
			if o.Path == x {
				xv = o.Value
			} else {
				rest = append(rest, shortPath(o.Path)+"="+o.Value)
			}
		}
		xi, ok := xIndex[xv]
		if !ok {
			continue
		}
		xf := float64(xi)
		if numeric {
			xf = xnum[xi]
		}
		perPoint := metric == "mtt_hit_rate" || metric == "mpt_hit_rate" || strings.HasPrefix(metric, "pcie_")
		for gi := range pt.Generators {
			g := &pt.Generators[gi]
			var parts []string
			if !perPoint && len(pt.Generators) > 1 {
				parts = append(parts, g.Name)
			}
			parts = append(parts, rest...)
			name := strings.Join(parts, " ")
			if name == "" {
				name = g.Name
			}
			if _, seen := series[name]; !seen {
				order = append(order, name)
			}
			series[name] = append(series[name], plotter.XY{X: xf, Y: pm.get(pt, g)})
			if perPoint {
				break
			}
		}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s vs %s", r.Workload, pm.label, x)
	p.X.Label.Text = x
	p.Y.Label.Text = pm.label
	p.Legend.Top, p.Legend.Left = false, true
	if numeric && logScaled(xnum) {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if !numeric {
		p.NominalX(xs...)
	}
	var ys []float64
	for _, name := range order {
		for _, xy := range series[name] {
			ys = append(ys, xy.Y)
		}
	}
	if logScaled(ys) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, name := range order {
		pts := series[name]
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s, series %s: %w", metric, name, err)
		}
		l.Color = plotutil.Color(i)
		s.Color = plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	return p, nil
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

// logScaled says whether positive x values span more than two decades.
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
func writeCDFPlots(dir string, r *results.Result) ([]string, error) {
	if len(r.Points) == 0 {
		return nil, nil
	}
	var files []string
	for gi := range r.Points[0].Generators {
		gen := r.Points[0].Generators[gi].Name
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
			var g *results.GenResult
			for j := range pt.Generators {
				if pt.Generators[j].Name == gen {
					g = &pt.Generators[j]
				}
			}
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
				return files, fmt.Errorf("CDF plot %s: %w", gen, err)
			}
			l.Color = plotutil.Color(n)
			l.Dashes = plotutil.Dashes(n / 7)
			p.Add(l)
			var parts []string
			for _, o := range pt.Point {
				parts = append(parts, shortPath(o.Path)+"="+o.Value)
			}
			name := strings.Join(parts, " ")
			if name == "" {
				name = gen
			}
			p.Legend.Add(name, l)
			n++
		}
		if n == 0 {
			continue
		}
		if logScaled(all) {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Y.Min, p.Y.Max = 0, 1
		for _, ext := range []string{"png", "svg"} {
			name := filepath.Join(dir, fmt.Sprintf("latency_cdf-%s.%s", sanitize(gen), ext))
			if err := p.Save(7*vg.Inch, 4.5*vg.Inch+vg.Length(n)*0.15*vg.Inch, name); err != nil {
				return files, fmt.Errorf("plot %s: %w", name, err)
			}
			files = append(files, name)
		}
	}
	return files, nil
}
