package results

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// seriesResult is a result the shape of workloads/rdma-read-write.yaml's
// sweep: 4 points of 2 generators (110 intervals of 2 us) and 118 metered
// resources (100 intervals), with 300 statistics each. Its figures come
// from a seeded stream, with as many digits as a run's.
func seriesResult(seed uint64) *Result {
	rng := rand.New(rand.NewPCG(seed, 0))
	axis := workloads.SweepAxis{Path: "generators.write.size_bytes", Values: []string{"64", "256", "1024", "4096"}}
	r := &Result{Workload: "rdma-read-write", Seed: seed, Sweep: []workloads.SweepAxis{axis}}
	for _, v := range axis.Values {
		over := []workloads.Override{{Path: axis.Path, Value: v}}
		p := PointResult{Label: workloads.Label(over), Point: over, StopReason: "duration", WindowPS: 2e8, Events: 160000}
		s := &Series{IntervalPS: 2e6, WarmupPS: 2e7, EndPS: 2.2e8}
		for _, name := range []string{"write", "read"} {
			g := GenSeries{Name: name}
			for range 110 {
				n := rng.Uint64N(200)
				g.Completed, g.Failed, g.Bytes = append(g.Completed, n), append(g.Failed, 0), append(g.Bytes, 64*n)
				g.LatencyCount = append(g.LatencyCount, n)
				g.P50NS = append(g.P50NS, float64(rng.Uint64N(4e6))/1e3)
				g.P99NS = append(g.P99NS, float64(rng.Uint64N(8e6))/1e3)
				g.MaxNS = append(g.MaxNS, float64(rng.Uint64N(9e6))/1e3)
			}
			s.Generators = append(s.Generators, g)
		}
		for i := range 118 {
			rs := ResourceSeries{Name: fmt.Sprintf("nic.block%03d", i), Unit: "items/interval", Capacity: 1, StartPS: 2e7, IntervalPS: 2e6}
			for range 100 {
				rs.Utilisation = append(rs.Utilisation, rng.Float64())
			}
			s.Resources = append(s.Resources, rs)
			p.Utilisation = append(p.Utilisation, ResourceUse{Name: rs.Name, Unit: rs.Unit, Capacity: 1, Utilisation: rng.Float64()})
		}
		for i := range 300 {
			v := float64(rng.Uint64N(1e9)) / 7
			p.Stats = append(p.Stats, sim.StatValue{Name: fmt.Sprintf("nic.stat%03d", i), Unit: "ps", Desc: "a statistic", Value: &v})
		}
		p.Series = s
		r.Points = append(r.Points, p)
	}
	Round(r)
	return r
}

// BenchmarkWriteTimeseriesCSV is timeseries.csv of a four-point sweep of
// short runs (48,000 rows), where writing the results is a large part of
// a run's wall time.
func BenchmarkWriteTimeseriesCSV(b *testing.B) {
	r := seriesResult(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteTimeseriesCSV(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeJSON is results.json of the same sweep.
func BenchmarkEncodeJSON(b *testing.B) {
	r := seriesResult(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeJSON(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWritePlotPNG encodes the PNG of the same sweep's
// throughput-over-time figure, drawn once: as plots are saved (writePNG)
// and by image/png at its best speed, which filters every row adaptively,
// in one run.
func BenchmarkWritePlotPNG(b *testing.B) {
	j := timeseriesJobs(seriesResult(1))[0]
	c := vgimg.PngCanvas{Canvas: vgimg.New(7*vg.Inch+j.f.legendWidth(), j.height)}
	j.f.p.Draw(draw.New(c))
	for _, enc := range []struct {
		name  string
		write func(io.Writer, image.Image) error
	}{
		{"unfiltered", writePNG},
		{"image-png", func(w io.Writer, m image.Image) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
		}},
	} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.write(io.Discard, c.Image()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
