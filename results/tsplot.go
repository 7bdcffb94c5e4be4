package results

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// UtilisationCurvesMax is how many curves the utilisation-over-time plot
// shows: the busiest resources by mean utilisation, shared out among the
// points (resourcesPerPoint).
const UtilisationCurvesMax = 8

// resourcesPerPoint is how many resources the utilisation plot shows for
// each of points points: UtilisationCurvesMax shared out, at least one (the
// resource that binds each point).
func resourcesPerPoint(points int) int { return max(UtilisationCurvesMax/max(points, 1), 1) }

// WriteTimeseriesPlots draws the time series of r's points (throughput,
// p99 latency and the busiest resources' utilisation over time, the end of
// warm-up marked) as PNG and SVG in dir, and returns the files written.
func WriteTimeseriesPlots(dir string, r *Result) ([]string, error) {
	return saveAll(dir, timeseriesJobs(r))
}

// timeseriesJobs are the time-series figures of r's points that have a
// curve.
func timeseriesJobs(r *Result) []plotJob {
	var jobs []plotJob
	perPoint := resourcesPerPoint(seriesPoints(r))
	for _, f := range []struct {
		stem, y  string
		add      func(fig *figure, p *PointResult, prefix string)
		fraction bool // the y axis spans 0 to 1 whatever the curves reach
	}{
		{plotTSThroughput, "throughput (Mops/s)", addGenCurves(func(g *GenSeries, k int, sec float64) (float64, bool) {
			return float64(g.Completed[k]-g.Failed[k]) / sec / 1e6, true
		}), false},
		{plotTSLatency, "p99 latency (ns)", addGenCurves(func(g *GenSeries, k int, _ float64) (float64, bool) {
			return g.P99NS[k], g.LatencyCount[k] > 0
		}), false},
		{plotTSUtilisation, "utilisation", addResourceCurves(perPoint), true},
	} {
		fig := newFigure(fmt.Sprintf("%s: %s over time", r.Workload, f.y), "time since setup (µs)", f.y)
		var warm uint64
		for i := range r.Points {
			p := &r.Points[i]
			if p.Series == nil {
				continue
			}
			warm = p.Series.WarmupPS
			prefix := ""
			if len(r.Points) > 1 {
				prefix = p.legend("") + " "
			}
			f.add(fig, p, prefix)
		}
		if fig.curves == 0 {
			continue
		}
		if f.fraction {
			fig.p.Y.Min, fig.p.Y.Max = 0, 1
		}
		markWarmup(fig, warm)
		jobs = append(jobs, plotJob{fig, f.stem, 4.5 * vg.Inch})
	}
	return jobs
}

// addGenCurves adds one curve per generator of a point: value(g, k, the
// interval's seconds) at each interval's middle, where ok.
func addGenCurves(value func(g *GenSeries, k int, sec float64) (float64, bool)) func(*figure, *PointResult, string) {
	return func(fig *figure, p *PointResult, prefix string) {
		s := p.Series
		for gi := range s.Generators {
			g := &s.Generators[gi]
			var xy plotter.XYs
			for k := range g.Completed {
				start := s.StartPS + uint64(k)*s.IntervalPS
				end := min(start+s.IntervalPS, max(s.EndPS, start+1))
				if v, ok := value(g, k, float64(end-start)/1e12); ok {
					xy = append(xy, plotter.XY{X: float64(start+end) / 2e6, Y: v})
				}
			}
			addLine(fig, prefix+g.Name, xy)
		}
	}
}

// seriesPoints is the number of r's points that have a time series.
func seriesPoints(r *Result) int {
	n := 0
	for i := range r.Points {
		if r.Points[i].Series != nil {
			n++
		}
	}
	return n
}

// addResourceCurves adds the n busiest resources of a point, by mean
// utilisation; none that was never busy.
func addResourceCurves(n int) func(*figure, *PointResult, string) {
	return func(fig *figure, p *PointResult, prefix string) {
		for _, r := range busiestResources(p.Series.Resources, n) {
			var xy plotter.XYs
			for k, u := range r.Utilisation {
				xy = append(xy, plotter.XY{X: (float64(r.StartPS) + (float64(k)+0.5)*float64(r.IntervalPS)) / 1e6, Y: u})
			}
			addLine(fig, prefix+r.Name, xy)
		}
	}
}

// busiestResources is the n resources of rs with the highest mean
// utilisation, busiest first (ties in rs's order), leaving out those never
// busy.
func busiestResources(rs []ResourceSeries, n int) []*ResourceSeries {
	mean := func(r *ResourceSeries) float64 {
		var s float64
		for _, u := range r.Utilisation {
			s += u
		}
		return s / float64(max(len(r.Utilisation), 1))
	}
	sorted := make([]*ResourceSeries, len(rs))
	for i := range rs {
		sorted[i] = &rs[i]
	}
	sort.SliceStable(sorted, func(i, j int) bool { return mean(sorted[i]) > mean(sorted[j]) })
	keep := sorted[:0]
	for _, r := range sorted[:min(len(sorted), n)] {
		if mean(r) > 0 {
			keep = append(keep, r)
		}
	}
	return keep
}

func addLine(fig *figure, name string, xy plotter.XYs) {
	if len(xy) == 0 {
		return
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return
	}
	l.LineStyle = curveStyle(fig.curves)
	fig.add(name, l)
}

// markWarmup draws a grey dashed line where warm-up ends.
func markWarmup(fig *figure, warmPS uint64) {
	if warmPS == 0 {
		return
	}
	x := float64(warmPS) / 1e6
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: fig.p.Y.Min}, {X: x, Y: fig.p.Y.Max}})
	if err != nil {
		return
	}
	l.Color = color.Gray{Y: 128}
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
	fig.p.Add(l)
	fig.legend.Add("end of warm-up", l)
}
