package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// A baseline is a folder of results/baselines/: the results.json a
// workload gave, and baseline.json saying how to make it again. `nicsim
// regress` reruns each and compares (CompareResults); --update rewrites
// them.

// Baseline is baseline.json: what a baseline was made from, so it can be
// remade and rerun exactly.
type Baseline struct {
	File    string   `json:"file"` // workload file, relative to the repository root
	Seed    uint64   `json:"seed"`
	Sets    []string `json:"sets,omitempty"`
	Version string   `json:"nicsim_version"`
}

// BaselineJSON is the manifest of a baseline folder.
const BaselineJSON = "baseline.json"

// BaselinesMax bounds how many baselines one regress run reads.
const BaselinesMax = 256

// ListBaselines lists the baseline folders in dir (its sub-folders), sorted.
// No baseline, or more than BaselinesMax, is an error.
func ListBaselines(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no baselines in %s (create them with --add FILE)", dir)
	}
	if len(names) > BaselinesMax {
		return nil, fmt.Errorf("%d baselines in %s, above the limit of %d", len(names), dir, BaselinesMax)
	}
	return names, nil
}

// ReadBaseline reads the manifest of the baseline folder dir.
func ReadBaseline(dir string) (Baseline, error) {
	var b Baseline
	data, err := os.ReadFile(filepath.Join(dir, BaselineJSON))
	if err == nil {
		err = json.Unmarshal(data, &b)
	}
	if err != nil || b.File == "" {
		return b, fmt.Errorf("%s: missing or bad baseline.json: %v", dir, err)
	}
	return b, nil
}

// WriteBaseline writes the baseline folder dir: r as results.json and b as
// baseline.json. A partial result is refused.
func WriteBaseline(dir string, b Baseline, r *Result) error {
	if r.Partial {
		return fmt.Errorf("%s: the run is partial; a baseline must be complete", b.File)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := EncodeJSON(withoutSeries(r))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ResultsJSON), data, 0o644)
	}
	if err == nil {
		err = WriteJSON(filepath.Join(dir, BaselineJSON), b)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", dir, err)
	}
	return nil
}

// withoutSeries is r without its points' time series, which baselines
// leave out: regress compares the window's figures, and the series would
// make the committed files several times larger.
func withoutSeries(r *Result) *Result {
	c := *r
	c.Points = append([]PointResult(nil), r.Points...)
	for i := range c.Points {
		c.Points[i].Series = nil
	}
	return &c
}
