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

// SeedAxis is the sweep key of a seed sweep: its points are samples of
// one benchmark, not benchmarks of their own.
const SeedAxis = "run.seed"

// WriteBenchfmt writes r in the Go benchmark format
// (golang.org/design/14313-benchmark-format), one result line per point and
// generator, so benchstat can compare runs: name
// Nicsim/workload=W/<sweep key=value>.../gen=G, iterations = completed
// operations. A sweep over run.seed is left out of the names, so each seed
// is one sample of the same benchmark and benchstat gives confidence
// intervals and p-values over seeds. A unit is marked assume=exact only
// when every benchmark has one sample: nicsim is deterministic, so
// rerunning one seed adds no information, while figures of different seeds
// do differ. label, if not empty, is written as the file-level config key
// "nicsim-result".
func WriteBenchfmt(w io.Writer, r *Result, label string) error {
	bw := benchfmt.NewWriter(w)
	units := benchMetrics()
	names := benchNames(r)
	exact := true
	seen := map[string]bool{}
	for _, n := range names {
		exact = exact && !seen[n]
		seen[n] = true
	}
	for _, u := range units {
		md := [][2]string{{"better", u.Better.String()}}
		if exact {
			md = append(md, [2]string{"assume", "exact"})
		}
		for _, kv := range md {
			m := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.BenchUnit, Key: kv[0]}, OrigUnit: u.BenchUnit, Value: kv[1]}
			if err := bw.Write(m); err != nil {
				return err
			}
		}
	}
	cfg := []benchfmt.Config{{Key: "nicsim-workload", Value: []byte(r.Workload), File: true}}
	if !sweepsSeeds(r) {
		cfg = append(cfg, benchfmt.Config{Key: "nicsim-seed", Value: []byte(fmt.Sprint(r.Seed)), File: true})
	}
	if label != "" {
		cfg = append(cfg, benchfmt.Config{Key: "nicsim-result", Value: []byte(label), File: true})
	}
	k := 0
	for i := range r.Points {
		p := &r.Points[i]
		for j := range p.Generators {
			g := &p.Generators[j]
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(names[k]), Iters: int(max(g.Completed, 1))}
			k++
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

// sweepsSeeds reports whether r sweeps run.seed.
func sweepsSeeds(r *Result) bool {
	for _, a := range r.Sweep {
		if a.Path == SeedAxis {
			return true
		}
	}
	return false
}

// benchNames are the benchmark names of r's points and generators, in
// order, without the seed axis.
func benchNames(r *Result) []string {
	var out []string
	for i := range r.Points {
		p := &r.Points[i]
		var name strings.Builder
		name.WriteString("Nicsim/workload=" + benchNamePart(r.Workload))
		for _, o := range p.Point {
			if o.Path != SeedAxis {
				name.WriteString("/" + benchNamePart(o.Path) + "=" + benchNamePart(o.Value))
			}
		}
		for j := range p.Generators {
			out = append(out, name.String()+"/gen="+benchNamePart(p.Generators[j].Name))
		}
	}
	return out
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
