package validation

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/workloads"
)

// Key is the top-level key that makes a workload file a validation file.
const Key = "validation"

// FilesMax bounds how many validation files one run reads.
const FilesMax = 256

// Load reads a validation file: the workload (every key but `validation`,
// loaded as `nicsim run` would) and its validation section, checked
// against the workload. Every problem is an error with file:line:col.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, workloads.FileBytesMax+1))
	if err != nil {
		return nil, err
	}
	return LoadBytes(path, data)
}

// LoadBytes is Load on data already read; name is used in messages.
func LoadBytes(name string, data []byte) (*File, error) {
	root, perrs := workloads.ParseDocument(name, data)
	if perrs != nil {
		return nil, perrs
	}
	rest, sec := splitRoot(root)
	if sec == nil {
		return nil, workloads.Errors{{File: name, Line: root.Line, Col: root.Column,
			Msg: "no `" + Key + ":` key: a validation file is a workload plus a " + Key + " section (workloads/validation/doc.go)"}}
	}
	w, err := workloads.LoadNode(name, rest, workloads.Options{})
	if err != nil {
		return nil, err
	}
	d := &decoder{file: name}
	f := &File{Path: name, Workload: w}
	d.decode(sec, reflect.ValueOf(&f.Section).Elem(), Key, 0)
	if len(d.errs) == 0 {
		f.check(d)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return f, nil
}

// splitRoot returns the top-level mapping without the validation key, and
// that key's value (nil when absent).
func splitRoot(root *yaml.Node) (*yaml.Node, *yaml.Node) {
	rest := *root
	rest.Content = nil
	var sec *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == Key && sec == nil {
			sec = root.Content[i+1]
			continue
		}
		rest.Content = append(rest.Content, root.Content[i], root.Content[i+1])
	}
	return &rest, sec
}

// isSlug reports whether s is a name a validation file gives: 1 to 64
// lower-case letters, digits and '-', not starting with '-'. The length is
// tested apart: a bounded repetition ({0,63}) would make the expression
// cost 1 ms to compile as every run starts.
func isSlug(s string) bool { return len(s) <= 64 && slugChars.MatchString(s) }

var slugChars = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// sourcesSection is a section number of docs/sources.md: 1, 1.1, 2.
var sourcesSection = regexp.MustCompile(`^[0-9]{1,2}(\.[0-9]{1,2})?$`)

// check applies the rules the decoder's types cannot say.
func (f *File) check(d *decoder) {
	if !isSlug(f.Source) {
		d.errPos(f.pos, Key+".source", "%q must be 1..64 lower-case letters, digits and '-'", f.Source)
	}
	if len(f.Rows) == 0 {
		d.errPos(f.pos, Key+".rows", "a validation file needs at least one row")
	}
	plots := map[string]bool{}
	for i := range f.Plots {
		p := &f.Plots[i]
		path := fmt.Sprintf("%s.plots.%d", Key, i)
		if !isSlug(p.Name) || plots[p.Name] {
			d.errPos(p.pos, join(path, "name"), "%q must be unique, 1..64 lower-case letters, digits and '-'", p.Name)
		}
		if p.Title == "" || p.XLabel == "" || p.YLabel == "" {
			d.errPos(p.pos, path, "a plot needs title, x_label and y_label")
		}
		if _, ok := legendCorners[p.Legend]; !ok {
			d.errPos(p.pos, join(path, "legend"), "%q is not one of top-left, top-right, bottom-left, bottom-right", p.Legend)
		}
		plots[p.Name] = true
	}
	ids := map[string]bool{}
	for i := range f.Rows {
		r := &f.Rows[i]
		path := fmt.Sprintf("%s.rows.%d", Key, i)
		if ids[r.ID] {
			d.errPos(r.pos, join(path, "id"), "%q is used twice", r.ID)
		}
		ids[r.ID] = true
		r.check(d, f, plots, path)
	}
}

func (r *Row) check(d *decoder, f *File, plots map[string]bool, path string) {
	if !isSlug(r.ID) {
		d.errPos(r.pos, join(path, "id"), "%q must be 1..64 lower-case letters, digits and '-'", r.ID)
	}
	for _, x := range []struct{ key, v string }{{"figure", r.Figure}, {"citation", r.Citation}, {"unit", r.Unit}} {
		if x.v == "" {
			d.errPos(r.pos, join(path, x.key), "required")
		}
	}
	if !sourcesSection.MatchString(r.SourcesSection) {
		d.errPos(r.pos, join(path, "section"), "%q is not a docs/sources.md section such as 1.1 or 2", r.SourcesSection)
	}
	if !r.Published.set {
		d.errPos(r.pos, join(path, "published"), "required: the published value in unit")
	}
	if (r.NICSim == nil) == (r.NotModelled == "") {
		d.errPos(r.pos, path, "give exactly one of nicsim (how nicsim's value is taken) and not_modelled (why there is none)")
	}
	r.checkTolerance(d, path)
	if r.NICSim != nil {
		r.NICSim.check(d, f.Workload, join(path, "nicsim"))
	}
	if b := r.BoundBy; b != nil && (b.Source == "" || len(b.NICSim) == 0) {
		d.errPos(r.pos, join(path, "bound_by"), "needs source (the resource the source names) and nicsim (its names in nicsim)")
	}
	if p := r.Plot; p != nil && (!plots[p.Name] || p.Series == "") {
		d.errPos(p.pos, join(path, "plot"), "needs name (one of the file's plots) and series")
	}
	if r.Calibration && r.NotModelled != "" {
		d.errPos(r.pos, join(path, "calibration"), "a row that is not modelled cannot have calibrated anything")
	}
}

func (r *Row) checkTolerance(d *decoder, path string) {
	switch {
	case (r.TolerancePct != 0) == (r.Accept != nil):
		d.errPos(r.pos, path, "give exactly one of tolerance_pct and accept")
	case r.Accept != nil && r.Accept.Min == nil && r.Accept.Max == nil:
		d.errPos(r.pos, join(path, "accept"), "needs min, max or both")
	case r.Accept != nil && r.Accept.Min != nil && r.Accept.Max != nil && *r.Accept.Min > *r.Accept.Max:
		d.errPos(r.pos, join(path, "accept"), "min %g is above max %g", *r.Accept.Min, *r.Accept.Max)
	case r.Accept == nil && (r.TolerancePct < 0 || r.TolerancePct > 100):
		d.errPos(r.pos, join(path, "tolerance_pct"), "%g is out of range 0..100", r.TolerancePct)
	case r.Accept == nil && r.Published.Value == 0:
		d.errPos(r.pos, join(path, "tolerance_pct"), "a relative tolerance needs a non-zero published value; use accept")
	}
}

// LoadDir loads every *.yaml file of dir, sorted by name, and checks what
// spans files: row ids are unique over all files, and files of one source
// agree on its title.
func LoadDir(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no validation files (*.yaml) in %s", dir)
	}
	if len(paths) > FilesMax {
		return nil, fmt.Errorf("%d validation files in %s, above the limit of %d", len(paths), dir, FilesMax)
	}
	var files []*File
	var errs workloads.Errors
	for _, p := range paths {
		f, err := Load(filepath.ToSlash(p))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	ids := map[string]string{}
	titles := map[string]*File{}
	for _, f := range files {
		for i := range f.Rows {
			r := &f.Rows[i]
			if other, dup := ids[r.ID]; dup {
				errs = append(errs, &workloads.Error{File: f.Path, Line: r.line, Col: r.col, Path: "id", Msg: fmt.Sprintf("row id %q is also used in %s", r.ID, other)})
			}
			ids[r.ID] = f.Path
		}
		if t, ok := titles[f.Source]; ok && f.SourceTitle != "" && t.SourceTitle != "" && t.SourceTitle != f.SourceTitle {
			errs = append(errs, &workloads.Error{File: f.Path, Path: Key + ".source_title", Msg: fmt.Sprintf("differs from the title %s gives source %s", t.Path, f.Source)})
		}
		if t, ok := titles[f.Source]; !ok || t.SourceTitle == "" {
			titles[f.Source] = f
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return files, nil
}
