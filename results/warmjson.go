package results

import (
	"encoding/json"
	"io"

	"github.com/nicsim/nicsim/workloads"
)

// PrefetchJSON has encoding/json analyse, in the background, every type
// the configuration hash and the output files encode. encoding/json
// analyses a type (its fields, their tags, their order) the first time it
// encodes one, once a process: for a run's types that is about 16 M
// instructions, most of a short run's own work (docs/kernel.md, "Short
// runs"). Started as a command begins, the analysis runs on another core
// beside the loading of the workload and the simulation; a first real
// encoding finds a type analysed, or waits for (or repeats) the part still
// under way. The bytes encoded are the same either way.
func PrefetchJSON() { go warmJSON() }

// warmJSON encodes each of warmValues and throws the bytes away.
func warmJSON() {
	enc := json.NewEncoder(io.Discard)
	for _, v := range warmValues() {
		_ = enc.Encode(v) // what fails to encode here fails again where it counts
	}
}

// warmValues are a value of each type the configuration hash and the
// output files encode: a workload with a generator of every kind (a
// generator encodes its kind's parameters as it is encoded), config.json,
// results.json with a point, and meta.json.
func warmValues() []any {
	w := &workloads.Workload{}
	for _, k := range workloads.Kinds() {
		g := workloads.Generator{Kind: k.Name}
		if k.Params != nil {
			g.Params = k.Params()
		}
		w.Generators = append(w.Generators, g)
	}
	return []any{[]*workloads.Workload{w}, &Config{}, &Result{Points: []PointResult{{}}}, &Meta{}, &SweepMeta{}}
}
