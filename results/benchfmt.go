package results

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// benchUnit maps a compare metric to its Go benchmark unit.
var benchUnits = []struct {
	metric string
	unit   string
	better string
	get    func(*GenResult) float64
}{
	{"throughput_mops", "Mops/s", "higher", func(g *GenResult) float64 { return g.ThroughputMops }},
	{"goodput_gbps", "Gb/s", "higher", func(g *GenResult) float64 { return g.GoodputGbps }},
	{"latency_ns_mean", "mean-ns", "lower", func(g *GenResult) float64 { return g.LatencyNS.Mean }},
	{"latency_ns_p50", "p50-ns", "lower", func(g *GenResult) float64 { return g.LatencyNS.P50 }},
	{"latency_ns_p99", "p99-ns", "lower", func(g *GenResult) float64 { return g.LatencyNS.P99 }},
	{"latency_ns_p999", "p999-ns", "lower", func(g *GenResult) float64 { return g.LatencyNS.P999 }},
	{"latency_ns_max", "max-ns", "lower", func(g *GenResult) float64 { return g.LatencyNS.Max }},
	{"failed", "failed-ops", "lower", func(g *GenResult) float64 { return float64(g.Failed) }},
}

// WriteBenchfmt writes r in the Go benchmark format
// (golang.org/design/14313-benchmark-format), one result line per point and
// generator, so benchstat can compare runs: name
// Nicsim/workload=W/<sweep key=value>.../gen=G, iterations = completed
// operations. Each unit carries better= and assume=exact metadata: nicsim
// results are deterministic, so repeated runs add no information. label, if
// not empty, is written as the file-level config key "nicsim-result".
func WriteBenchfmt(w io.Writer, r *Result, label string) error {
	bw := benchfmt.NewWriter(w)
	for _, u := range benchUnits {
		for _, kv := range [][2]string{{"better", u.better}, {"assume", "exact"}} {
			md := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.unit, Key: kv[0]}, OrigUnit: u.unit, Value: kv[1]}
			if err := bw.Write(md); err != nil {
				return err
			}
		}
	}
	cfg := []benchfmt.Config{{Key: "nicsim-workload", Value: []byte(r.Workload), File: true},
		{Key: "nicsim-seed", Value: []byte(fmt.Sprint(r.Seed)), File: true}}
	if label != "" {
		cfg = append(cfg, benchfmt.Config{Key: "nicsim-result", Value: []byte(label), File: true})
	}
	for i := range r.Points {
		p := &r.Points[i]
		var name strings.Builder
		name.WriteString("Nicsim/workload=" + benchNamePart(r.Workload))
		for _, o := range p.Point {
			name.WriteString("/" + benchNamePart(o.Path) + "=" + benchNamePart(o.Value))
		}
		for j := range p.Generators {
			g := &p.Generators[j]
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(name.String() + "/gen=" + benchNamePart(g.Name)), Iters: int(max(g.Completed, 1))}
			for _, u := range benchUnits {
				res.Values = append(res.Values, benchfmt.Value{Value: u.get(g), Unit: u.unit})
			}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchNamePart keeps a name component to the characters the benchmark
// format allows: no spaces, and '/' only as the separator.
func benchNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '/' || r == '\n':
			return '_'
		}
		return r
	}, s)
}
