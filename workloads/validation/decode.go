package validation

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/workloads"
)

// decoder fills the validation section's Go values from its yaml.Node
// tree strictly: unknown and duplicate keys, wrong types and aliases are
// errors naming file:line:col and the key path. It never panics on input.
type decoder struct {
	file string
	errs workloads.Errors
}

// itemsMax bounds any list of a validation file.
const itemsMax = 1000

// depthMax bounds nesting (ratios of ratios), so a hostile file cannot
// exhaust the stack.
const depthMax = 16

type positioned interface{ setPos(line, col int) }

var (
	positionedType = reflect.TypeFor[positioned]()
	numberType     = reflect.TypeFor[Number]()
)

func (d *decoder) errAt(n *yaml.Node, path, format string, args ...any) {
	line, col := workloads.NodePos(n)
	d.errs.Add(workloads.At(d.file, line, col, path, format, args...))
}

// errPos records a problem at a position the decoder kept.
func (d *decoder) errPos(p pos, path, format string, args ...any) {
	d.errAt(&yaml.Node{Line: p.line, Column: p.col}, path, format, args...)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decode fills v (addressable) from n.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) {
	if depth > depthMax {
		d.errAt(n, path, "nested deeper than %d", depthMax)
		return
	}
	if n.Kind == yaml.AliasNode || n.Alias != nil {
		d.errAt(n, path, "YAML aliases are not allowed")
		return
	}
	if v.Addr().Type().Implements(positionedType) {
		v.Addr().Interface().(positioned).setPos(n.Line, n.Column)
	}
	switch {
	case v.Type() == numberType:
		d.number(n, v.Addr().Interface().(*Number), path)
	case v.Kind() == reflect.Pointer:
		if isNull(n) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), path, depth+1)
		v.Set(p)
	case v.Kind() == reflect.Struct:
		d.structure(n, v, path, depth)
	case v.Kind() == reflect.Slice:
		d.list(n, v, path, depth)
	case v.Kind() == reflect.Map:
		d.stringMap(n, v, path)
	default:
		d.scalar(n, v, path)
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// fieldsByKey maps a struct type's yaml keys to field indexes.
func fieldsByKey(t reflect.Type) (map[string]int, []string) {
	m := map[string]int{}
	var keys []string
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		m[tag] = i
		keys = append(keys, tag)
	}
	return m, keys
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string, depth int) {
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping, found %s", describe(n))
		return
	}
	fields, keys := fieldsByKey(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			d.errAt(k, kp, "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		fi, ok := fields[k.Value]
		if !ok {
			d.errAt(k, kp, "unknown key; allowed here: %s", strings.Join(keys, ", "))
			continue
		}
		d.decode(val, v.Field(fi), kp, depth+1)
	}
}

func (d *decoder) list(n *yaml.Node, v reflect.Value, path string, depth int) {
	if n.Kind != yaml.SequenceNode {
		d.errAt(n, path, "expected a list, found %s", describe(n))
		return
	}
	if len(n.Content) > itemsMax {
		d.errAt(n, path, "%d items, at most %d", len(n.Content), itemsMax)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.decode(c, s.Index(i), join(path, strconv.Itoa(i)), depth+1)
	}
	v.Set(s)
}

// stringMap decodes a mapping of scalars into a map[string]string.
func (d *decoder) stringMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping, found %s", describe(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.errAt(k, kp, "duplicate key")
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			d.errAt(val, kp, "expected a value, found %s", describe(val))
			continue
		}
		m.SetMapIndex(reflect.ValueOf(k.Value), reflect.ValueOf(val.Value))
	}
	v.Set(m)
}

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errAt(n, path, "expected a value, found %s", describe(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if len(n.Value) > 4096 {
			d.errAt(n, path, "longer than 4096 characters")
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if n.Tag != "!!bool" || err != nil {
			d.errAt(n, path, "expected true or false, found %s", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Float64:
		f, ok := d.float(n, path)
		if ok {
			v.SetFloat(f)
		}
	default:
		d.errAt(n, path, "internal: no decoder for %s", v.Type())
	}
}

// float parses a finite number.
func (d *decoder) float(n *yaml.Node, path string) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		d.errAt(n, path, "expected a number, found %s", describe(n))
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		d.errAt(n, path, "expected a finite number, found %s", describe(n))
		return 0, false
	}
	return f, true
}

func (d *decoder) number(n *yaml.Node, x *Number, path string) {
	if f, ok := d.float(n, path); ok {
		*x = Number{Value: f, Text: n.Value, set: true}
	}
}

func describe(n *yaml.Node) string { return workloads.Describe(n) }
