package validation

import "github.com/nicsim/nicsim/workloads"

// File is one loaded validation file: a workload (or sweep) and the rows
// that compare what it measures with published figures.
type File struct {
	Path     string
	Workload *workloads.File
	Section
}

// Section is the file's `validation:` key.
type Section struct {
	// Source keys the report's table: files of one source share a table.
	Source string `yaml:"source"`
	// SourceTitle is the table's heading: the publication and its
	// docs/sources.md section. Files of one source that give it must agree.
	SourceTitle string `yaml:"source_title"`
	Plots       []Plot `yaml:"plots"`
	Rows        []Row  `yaml:"rows"`
	pos
}

// Row is one published figure and how nicsim's value is taken from the
// run.
type Row struct {
	ID     string `yaml:"id"`     // unique over all files: letters, digits, '-'
	Figure string `yaml:"figure"` // what the figure is, in words
	// SourcesSection is the docs/sources.md section that records the figure
	// ("1.1"); Citation names where in the original it is (file, table,
	// figure).
	SourcesSection string `yaml:"section"`
	Citation       string `yaml:"citation"`
	Published      Number `yaml:"published"`
	// PublishedText replaces the number in the report when the source
	// words it ("about 2 µs", "up to 1 µs").
	PublishedText string   `yaml:"published_text"`
	Unit          string   `yaml:"unit"`
	NICSim        *Measure `yaml:"nicsim"`
	// NotModelled says why nicsim cannot produce the figure; the row is
	// then reported as not modelled, with the reason.
	NotModelled string `yaml:"not_modelled"`
	// TolerancePct accepts |nicsim / published - 1| <= TolerancePct %;
	// Accept accepts a closed range in the published unit instead (for a
	// source that gives a bound).
	TolerancePct float64 `yaml:"tolerance_pct"`
	Accept       *Bounds `yaml:"accept"`
	// Calibration marks a row whose figure set a preset value: it is not
	// a prediction.
	Calibration bool     `yaml:"calibration"`
	BoundBy     *BoundBy `yaml:"bound_by"`
	Plot        *PlotRef `yaml:"plot"`
	Note        string   `yaml:"note"`
	pos
}

// Number is a number as the file writes it: the value, and the text the
// report prints.
type Number struct {
	Value float64
	Text  string
	set   bool
}

// Bounds is a closed range; a missing end is unbounded.
type Bounds struct {
	Min *float64 `yaml:"min"`
	Max *float64 `yaml:"max"`
}

// BoundBy is the resource a source says limits the figure, and the names
// of nicsim's resources (meter names or their prefixes) that are the same
// thing.
type BoundBy struct {
	Source string   `yaml:"source"`
	NICSim []string `yaml:"nicsim"`
}

// Measure says how nicsim's value is taken from the results: a metric of
// a generator (or one of its parts) at one sweep point, or the ratio or
// difference of two measures, times Scale.
type Measure struct {
	Metric    string            `yaml:"metric"`
	Generator string            `yaml:"generator"` // "gen" or "gen/part"; default: the only generator
	At        map[string]string `yaml:"at"`        // sweep path -> value; must pick one point
	Ratio     []Measure         `yaml:"ratio"`     // [a, b]: a / b
	Diff      []Measure         `yaml:"difference"`
	Scale     *float64          `yaml:"scale"`
	pos
	point int // index of the point At picks
}

// Plot is a figure of the report: published and simulated series on the
// same axes.
type Plot struct {
	Name   string `yaml:"name"` // file name part: letters, digits, '-'
	Title  string `yaml:"title"`
	XLabel string `yaml:"x_label"`
	YLabel string `yaml:"y_label"`
	LogX   bool   `yaml:"log_x"`
	LogY   bool   `yaml:"log_y"`
	// Legend is the corner the legend sits in: top-left, top-right,
	// bottom-left or bottom-right (the default).
	Legend string `yaml:"legend"`
	pos
}

// PlotRef places a row in a plot: its series and x.
type PlotRef struct {
	Name   string  `yaml:"name"`
	Series string  `yaml:"series"`
	X      float64 `yaml:"x"`
	pos
}

// pos is where a value starts in its file.
type pos struct{ line, col int }

func (p *pos) setPos(line, col int) { p.line, p.col = line, col }
