package validation

import (
	"fmt"
	"math"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads/traffic"
)

// Verdict is how a row's nicsim value compares with the published one.
type Verdict string

// Verdicts.
const (
	Within             Verdict = "within"              // a prediction inside its tolerance
	Outside            Verdict = "outside"             // a prediction outside it (or no value): a miss
	Calibration        Verdict = "calibration"         // a calibration row that reproduces its figure
	CalibrationOutside Verdict = "calibration-outside" // a calibration row that does not
	NotModelled        Verdict = "not-modelled"        // nicsim cannot produce the figure
)

// Holds says whether the verdict is a figure nicsim reproduces.
func (v Verdict) Holds() bool { return v == Within || v == Calibration }

// Outcome is one row's result.
type Outcome struct {
	File    *File
	Row     *Row
	Value   float64 // NaN: no value (not modelled, or nothing measured)
	Verdict Verdict
	// BoundBy is what nicsim's results say binds the row's generator (its
	// first measure's); zero when they name nothing.
	BoundBy results.BoundBy
}

// Report is every row of every file, in file order and row order within
// a file.
type Report struct {
	Files    []*File
	Outcomes []Outcome
	// Warnings are the runs' own warnings (a cache still filling in the
	// measured window, no latency sample, ...), as "file: point: text":
	// figures that may not measure what the row means.
	Warnings []string
}

// Options control a validation run; none changes a figure.
type Options struct {
	Jobs int // sweep points run at once
	// Progress is told each file before it runs.
	Progress func(f *File)
}

// Run runs the workload of every file that has a measured row and judges
// every row.
func Run(files []*File, opts Options) (*Report, error) {
	rep := &Report{Files: files}
	for _, f := range files {
		res, err := runFile(f, opts)
		if err != nil {
			return nil, err
		}
		rep.Warnings = append(rep.Warnings, runWarnings(f, res)...)
		for i := range f.Rows {
			o, err := judge(f, &f.Rows[i], res)
			if err != nil {
				return nil, err
			}
			rep.Outcomes = append(rep.Outcomes, o)
		}
	}
	return rep, nil
}

// runFile runs f's workload, or nothing when no row is measured. A point
// that did not finish is an error: its figures would not be the file's.
func runFile(f *File, opts Options) (*results.Result, error) {
	measured := false
	for i := range f.Rows {
		measured = measured || f.Rows[i].NICSim != nil
	}
	if !measured {
		return nil, nil
	}
	if opts.Progress != nil {
		opts.Progress(f)
	}
	res, err := traffic.RunSweep(f.Workload, traffic.SweepOptions{Jobs: opts.Jobs})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	for _, p := range res.Points {
		if p.Partial {
			return nil, fmt.Errorf("%s: point %q stopped at %s before its measured operations finished; lengthen run.sim_time_max_us", f.Path, p.Label, p.StopReason)
		}
	}
	return res, nil
}

// runWarnings lists the warnings of res's points.
func runWarnings(f *File, res *results.Result) []string {
	if res == nil {
		return nil
	}
	var out []string
	for _, p := range res.Points {
		for _, w := range p.Warnings {
			label := p.Label
			if label == "" {
				label = "the run"
			}
			out = append(out, fmt.Sprintf("%s: %s: %s", f.Path, label, w))
		}
	}
	return out
}

func judge(f *File, r *Row, res *results.Result) (Outcome, error) {
	o := Outcome{File: f, Row: r, Value: math.NaN(), Verdict: NotModelled}
	if r.NICSim == nil {
		return o, nil
	}
	v, err := r.NICSim.value(res)
	if err != nil {
		return o, fmt.Errorf("%s: row %s: %w", f.Path, r.ID, err)
	}
	o.Value = v
	o.BoundBy = r.NICSim.boundBy(res)
	switch ok := r.holds(v); {
	case r.Calibration && ok:
		o.Verdict = Calibration
	case r.Calibration:
		o.Verdict = CalibrationOutside
	case ok:
		o.Verdict = Within
	default:
		o.Verdict = Outside
	}
	return o, nil
}

// holds says whether v is within the row's tolerance of the published
// value, or inside its accepted range.
func (r *Row) holds(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if a := r.Accept; a != nil {
		return (a.Min == nil || v >= *a.Min) && (a.Max == nil || v <= *a.Max)
	}
	return math.Abs(v/r.Published.Value-1) <= r.TolerancePct/100+1e-12
}

// ErrorPct is (nicsim / published - 1) in percent; NaN without a value,
// with a published 0, or for a row judged by a range (its published value
// is a bound, not a measurement to be off from).
func (o *Outcome) ErrorPct() float64 {
	if o.Row.Published.Value == 0 || o.Row.Accept != nil {
		return math.NaN()
	}
	return (o.Value/o.Row.Published.Value - 1) * 100
}
