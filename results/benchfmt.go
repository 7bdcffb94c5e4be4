package results

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// benchMetrics are the metrics written in the Go benchmark format: those
// with a BenchUnit, all per generator.
func benchMetrics() []Metric {
	var out []Metric
	for _, m := range Metrics {
		if m.BenchUnit != "" {
			out = append(out, m)
		}
	}
	return out
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
	units := benchMetrics()
	for _, u := range units {
		for _, kv := range [][2]string{{"better", u.Better.String()}, {"assume", "exact"}} {
			md := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.BenchUnit, Key: kv[0]}, OrigUnit: u.BenchUnit, Value: kv[1]}
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
			for _, u := range units {
				res.Values = append(res.Values, benchfmt.Value{Value: u.Value(p, g), Unit: u.BenchUnit})
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
