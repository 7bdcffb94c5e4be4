package results

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// utilisationResult is a result of points points, each with resources
// resources whose utilisation is constant: resource i of point p is busy
// (i+p)%resources / resources of the time, so one resource per point is
// never busy.
func utilisationResult(points, resources int) *Result {
	r := &Result{Workload: "w"}
	for p := range points {
		s := &Series{IntervalPS: 1e6, EndPS: 4e6}
		for i := range resources {
			rs := ResourceSeries{Name: fmt.Sprintf("res%02d", i), Capacity: 1, IntervalPS: 1e6}
			u := float64((i+p)%resources) / float64(resources)
			rs.Utilisation = []float64{u, u, u, u}
			s.Resources = append(s.Resources, rs)
		}
		r.Points = append(r.Points, PointResult{Label: fmt.Sprintf("p%d", p), Series: s})
	}
	return r
}

// utilisationFigure is r's utilisation-over-time figure.
func utilisationFigure(t *testing.T, r *Result) *figure {
	for _, j := range timeseriesJobs(r) {
		if j.stem == "timeseries-utilisation" {
			return j.f
		}
	}
	t.Fatal("no utilisation figure")
	return nil
}

// utilisationCurves is the number of curves of r's utilisation figure.
func utilisationCurves(t *testing.T, r *Result) int { return utilisationFigure(t, r).curves }

// TestUtilisationPlotSharesItsCurvesAmongPoints: the utilisation-over-time
// figure draws at most UtilisationCurvesMax curves, shared out among the
// points, and always at least each point's busiest resource.
func TestUtilisationPlotSharesItsCurvesAmongPoints(t *testing.T) {
	for _, c := range []struct{ points, curves int }{
		{1, 8}, {2, 8}, {3, 6}, {4, 8}, {8, 8}, {9, 9}, {16, 16},
	} {
		require.Equal(t, c.curves, utilisationCurves(t, utilisationResult(c.points, 20)), "%d points", c.points)
	}
	// A point with fewer busy resources than its share draws only those.
	require.Equal(t, 4, utilisationCurves(t, utilisationResult(1, 5)))
}

// TestUtilisationPlotShowsEachPointsBusiestResources: the resources drawn
// for a point are its busiest by mean utilisation, busiest first, and none
// that was never busy.
func TestUtilisationPlotShowsEachPointsBusiestResources(t *testing.T) {
	r := utilisationResult(2, 6)
	names := func(rs []*ResourceSeries) []string {
		var out []string
		for _, x := range rs {
			out = append(out, x.Name)
		}
		return out
	}
	require.Equal(t, []string{"res05", "res04"}, names(busiestResources(r.Points[0].Series.Resources, 2)))
	require.Equal(t, []string{"res04", "res03"}, names(busiestResources(r.Points[1].Series.Resources, 2)))
	require.Equal(t, []string{"res04", "res03", "res02", "res01", "res00"}, names(busiestResources(r.Points[1].Series.Resources, 9)),
		"res05 of point 1 is never busy")
}

// TestUtilisationPlotSpansZeroToOne: utilisation is a fraction of a
// resource's capacity, so its axis spans 0 to 1 even when no curve
// reaches either (here 0.2 to 0.8).
func TestUtilisationPlotSpansZeroToOne(t *testing.T) {
	f := utilisationFigure(t, utilisationResult(1, 5))
	require.Equal(t, 0.0, f.p.Y.Min)
	require.Equal(t, 1.0, f.p.Y.Max)
}
