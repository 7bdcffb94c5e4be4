package validation

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plots are SVG only: text that diffs, with no embedded fonts or
// timestamps, so the same figures give the same bytes.

// PlotPrefix starts the name of every plot file the report owns, so stale
// plots can be removed and no other file of the folder is touched.
const PlotPrefix = "validation-"

func plotFile(f *File, p *Plot) string {
	return PlotPrefix + stem(f.Path) + "-" + p.Name + ".svg"
}

func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// WritePlots draws every plot of the report into dir, removes plot files
// of an earlier run that no plot makes any more, and returns the files
// written, sorted.
func (rep *Report) WritePlots(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	var files []string
	for _, f := range rep.Files {
		for i := range f.Plots {
			p := &f.Plots[i]
			name := filepath.Join(dir, plotFile(f, p))
			pl, err := rep.plot(f, p)
			if err != nil {
				return files, err
			}
			if err := pl.Save(7*vg.Inch, 4.5*vg.Inch, name); err != nil {
				return files, fmt.Errorf("plot %s: %w", name, err)
			}
			keep[filepath.Base(name)] = true
			files = append(files, name)
		}
	}
	old, err := filepath.Glob(filepath.Join(dir, PlotPrefix+"*.svg"))
	if err != nil {
		return files, err
	}
	for _, o := range old {
		if !keep[filepath.Base(o)] {
			if err := os.Remove(o); err != nil {
				return files, err
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// legendCorners maps a plot's legend key to (top, left).
var legendCorners = map[string][2]bool{"": {false, false}, "bottom-right": {false, false}, "bottom-left": {false, true},
	"top-right": {true, false}, "top-left": {true, true}}

// plotSeries is one series of a plot: its published and simulated
// points.
type plotSeries struct {
	name        string
	pub, nicsim plotter.XYs
}

// series collects the rows of plot p, one series per name in order of
// first appearance, each sorted by x.
func (rep *Report) series(f *File, p *Plot) []*plotSeries {
	var out []*plotSeries
	by := map[string]*plotSeries{}
	for i := range rep.Outcomes {
		o := &rep.Outcomes[i]
		ref := o.Row.Plot
		if o.File != f || ref == nil || ref.Name != p.Name {
			continue
		}
		s := by[ref.Series]
		if s == nil {
			s = &plotSeries{name: ref.Series}
			by[ref.Series] = s
			out = append(out, s)
		}
		s.pub = append(s.pub, plotter.XY{X: ref.X, Y: o.Row.Published.Value})
		if !math.IsNaN(o.Value) && !math.IsInf(o.Value, 0) {
			s.nicsim = append(s.nicsim, plotter.XY{X: ref.X, Y: o.Value})
		}
	}
	for _, s := range out {
		for _, xy := range []plotter.XYs{s.pub, s.nicsim} {
			sort.SliceStable(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		}
	}
	return out
}

// plot draws published values as dashed lines with hollow markers and
// nicsim's as solid lines with filled ones, a colour per series.
func (rep *Report) plot(f *File, p *Plot) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	corner := legendCorners[p.Legend]
	pl.Legend.Top, pl.Legend.Left = corner[0], corner[1]
	if p.LogX {
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if p.LogY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	for i, s := range rep.series(f, p) {
		for _, kind := range []struct {
			label  string
			xy     plotter.XYs
			dashed bool
		}{{"published", s.pub, true}, {"nicsim", s.nicsim, false}} {
			if len(kind.xy) == 0 {
				continue
			}
			l, sc, err := plotter.NewLinePoints(kind.xy)
			if err != nil {
				return nil, fmt.Errorf("%s: plot %s, series %s: %w", f.Path, p.Name, s.name, err)
			}
			l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
			sc.Shape = draw.CircleGlyph{}
			if kind.dashed {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				sc.Shape = draw.RingGlyph{}
			}
			pl.Add(l, sc)
			pl.Legend.Add(strings.TrimSpace(s.name+" "+kind.label), l, sc)
		}
	}
	return pl, nil
}
