package results

import (
	"encoding/csv"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/nicsim/nicsim/workloads"
)

// results.csv is tidy: one row per point and generator (row = generator)
// and per part of a generator's operations (row = part), with
//
//   - point: the point's index in the sweep (0 without a sweep);
//   - one column per sweep axis, named by its key path, holding the
//     point's value as written in the file (numbers stay numbers);
//   - row, generator, part (empty on generator rows), kind;
//   - the generator's figures (GenResult's fields, latency_ns_* flattened),
//     then the point's (PointResult's scalar fields, pcie_*, the hit
//     rates), empty on part rows so that summing a column never counts a
//     figure twice.
//
// A cell is empty where there is no data: a hit rate without lookups,
// a latency without samples, a rate over an empty window. The columns come
// from the schema's fields (json names, `csv` tags to rename, inline, join
// a list of strings with spaces or skip, `nodata` tags naming the field
// that says whether there is data),
// so a field added to GenResult or PointResult appears without code here.

// Row types of results.csv.
const (
	RowGenerator = "generator"
	RowPart      = "part"
)

// cell is one flattened field: its column name and text ("" = no data).
type cell struct{ name, text string }

// flatten appends the scalar fields of struct v (and of its nested
// structs, prefixed by their names) to out. Slices, maps and pointers are
// not columns.
func flatten(prefix string, v reflect.Value, out []cell) []cell {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts := csvName(f)
		if name == "-" || !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if f.Type.Kind() == reflect.Struct {
			p := prefix + name + "_"
			if opts == "inline" {
				p = prefix
			}
			out = flatten(p, fv, out)
			continue
		}
		text, ok := scalarText(fv)
		if opts == "join" && fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String {
			text, ok = strings.Join(fv.Interface().([]string), " "), true
		}
		if !ok {
			continue
		}
		if noData(v, f.Tag.Get("nodata")) {
			text = ""
		}
		out = append(out, cell{prefix + name, text})
	}
	return out
}

// csvName is a field's column name (its csv tag, else its json name) and
// the csv tag's option ("inline").
func csvName(f reflect.StructField) (string, string) {
	name, opts, _ := strings.Cut(f.Tag.Get("csv"), ",")
	if name == "" {
		name, _, _ = strings.Cut(f.Tag.Get("json"), ",")
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, opts
}

// noData reports whether any of the fields of struct v named (json names,
// comma-separated) in a nodata tag is zero.
func noData(v reflect.Value, deps string) bool {
	for dep := range strings.SplitSeq(deps, ",") {
		if dep != "" && isZeroField(v, dep) {
			return true
		}
	}
	return false
}

// isZeroField reports whether the field of struct v with json name dep is
// zero.
func isZeroField(v reflect.Value, dep string) bool {
	for i := range v.NumField() {
		if n, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); n == dep {
			return v.Field(i).IsZero()
		}
	}
	return false
}

// scalarText formats a scalar; false for anything that is not a column.
func scalarText(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	}
	return "", false
}

// Fields of GenResult and PointResult that are row keys, not figures.
var (
	genKeys   = map[string]bool{"name": true, "kind": true}
	pointKeys = map[string]bool{"label": true}
)

func without(cells []cell, drop map[string]bool) []cell {
	out := cells[:0:0]
	for _, c := range cells {
		if !drop[c.name] {
			out = append(out, c)
		}
	}
	return out
}

func genCells(g *GenResult) []cell {
	return without(flatten("", reflect.ValueOf(g).Elem(), nil), genKeys)
}

func pointCells(p *PointResult) []cell {
	return without(flatten("", reflect.ValueOf(p).Elem(), nil), pointKeys)
}

// csvTable is the header of results.csv for a result with sweep axes axes,
// and the position of every figure's column.
type csvTable struct {
	axes   []string
	header []string
	col    map[string]int
	index  map[string]int // point label -> index in the sweep
}

func newCSVTable(axes []workloads.SweepAxis) *csvTable {
	t := &csvTable{col: map[string]int{}, index: map[string]int{}}
	t.header = append(t.header, "point")
	for _, a := range axes {
		t.axes = append(t.axes, a.Path)
		t.header = append(t.header, a.Path)
	}
	t.header = append(t.header, "row", "generator", "part", "kind")
	for _, c := range append(genCells(&GenResult{}), pointCells(&PointResult{})...) {
		t.col[c.name] = len(t.header)
		t.header = append(t.header, c.name)
	}
	for i, l := range workloads.SweepLabels(axes) {
		t.index[l] = i
	}
	return t
}

// keys are the first cells of a row of point p: index and axis values.
func (t *csvTable) keys(p *PointResult) []string {
	row := make([]string, len(t.header))
	row[0] = strconv.Itoa(t.index[p.Label])
	for i, a := range t.axes {
		for _, o := range p.Point {
			if o.Path == a {
				row[1+i] = o.Value
			}
		}
	}
	return row
}

func (t *csvTable) put(row []string, cells []cell) {
	for _, c := range cells {
		if k, ok := t.col[c.name]; ok {
			row[k] = c.text
		}
	}
}

// rows are the rows of point p: each generator, then its parts.
func (t *csvTable) rows(p *PointResult) [][]string {
	var out [][]string
	pc := pointCells(p)
	k := 1 + len(t.axes)
	for j := range p.Generators {
		g := &p.Generators[j]
		row := t.keys(p)
		row[k], row[k+1], row[k+3] = RowGenerator, g.Name, g.Kind
		t.put(row, genCells(g))
		t.put(row, pc)
		out = append(out, row)
		for n := range g.Parts {
			pt := &g.Parts[n]
			row := t.keys(p)
			row[k], row[k+1], row[k+2], row[k+3] = RowPart, g.Name, pt.Kind, pt.Kind
			t.put(row, without(flatten("", reflect.ValueOf(pt).Elem(), nil), genKeys))
			out = append(out, row)
		}
	}
	return out
}

// WriteCSV writes results.csv of r.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	t := newCSVTable(r.Sweep)
	if err := cw.Write(t.header); err != nil {
		return err
	}
	for i := range r.Points {
		if err := cw.WriteAll(t.rows(&r.Points[i])); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
