package workloads

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decoder turns a yaml.Node tree into Go values strictly: unknown keys,
// duplicate keys, wrong types, aliases and values outside their rule are
// errors naming file:line:col and the key path. It never panics on input.
// Struct fields are matched by their yaml tag, or else their json tag (the
// model specs pcie.Spec and mtt.Spec carry json tags); a field's rule is its
// `check` tag, or else the model rule table (modelRule).
type decoder struct {
	file    string
	errs    Errors
	origins map[*yaml.Node]string // nodes that came from --set, with the override's text
	nodes   map[string]*yaml.Node // value node of every path decoded
	added   map[*yaml.Node]string // nodes a sweep point added, with its sweep key's path (applyPoint)
	depth   int
}

// nodeDecoder is implemented by types that decode themselves (Dist,
// Adapter, Generator).
type nodeDecoder interface {
	decodeYAML(d *decoder, n *yaml.Node, path string, rl string)
}

// defaulter fills a new value with its defaults before decoding overlays it.
type defaulter interface {
	setDefaults()
}

var (
	nodeDecoderType = reflect.TypeFor[nodeDecoder]()
	defaulterType   = reflect.TypeFor[defaulter]()
)

// depthMax bounds nesting, so that a hostile file cannot exhaust the stack.
const depthMax = 32

// itemsMax bounds any list a file can hold, whatever its own rule says.
const itemsMax = 100_000

func newDecoder(file string, origins map[*yaml.Node]string) *decoder {
	if origins == nil {
		origins = map[*yaml.Node]string{}
	}
	return &decoder{file: file, origins: origins, nodes: map[string]*yaml.Node{}}
}

// errAt records a problem at node n (nil: the file as a whole).
func (d *decoder) errAt(n *yaml.Node, path, format string, args ...any) {
	if len(d.errs) >= ErrorsMax {
		return
	}
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if p, ok := d.added[n]; ok {
		e.Path = p
	}
	if n != nil {
		if o, ok := d.origins[n]; ok {
			e.Origin = o
		} else {
			e.Line, e.Col = n.Line, n.Column
		}
	}
	d.errs = append(d.errs, e)
	if len(d.errs) == ErrorsMax {
		d.errs = append(d.errs, &Error{File: d.file, Msg: fmt.Sprintf("more than %d problems; stopping", ErrorsMax)})
	}
}

// errPath records a problem at the node of path, or of its nearest
// ancestor present in the file (a value that came from a preset or a
// default has no line of its own).
func (d *decoder) errPath(path, format string, args ...any) {
	d.errAt(d.nodeOf(path), path, format, args...)
}

func (d *decoder) nodeOf(path string) *yaml.Node {
	for p := path; ; {
		if n, ok := d.nodes[p]; ok {
			return n
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return d.nodes[""]
		}
		p = p[:i]
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Describe names what a node is, for type errors: "a mapping", "string
// \"x\"", "number 5", ...; other YAML formats (the validation files) use
// it too.
func Describe(n *yaml.Node) string { return describe(n) }

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("string %q", truncate(n.Value, 40))
		case "!!int", "!!float":
			return "number " + truncate(n.Value, 40)
		case "!!bool":
			return "boolean " + n.Value
		}
		return fmt.Sprintf("%s %q", n.Tag, truncate(n.Value, 40))
	}
	return "an empty document"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

type fieldInfo struct {
	name  string
	index int
	rule  string
}

func fieldsOf(t reflect.Type) []fieldInfo {
	var fs []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("yaml")
		if name == "" {
			name = f.Tag.Get("json")
		}
		name, _, _ = strings.Cut(name, ",")
		if name == "" || name == "-" || modelSkip[t] == name {
			continue
		}
		r, ok := f.Tag.Lookup("check")
		if !ok {
			r = modelRule(t, name)
		}
		fs = append(fs, fieldInfo{name: name, index: i, rule: r})
	}
	return fs
}

// decode decodes n into v, checking rl.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value, rl string) {
	d.nodes[path] = n
	if n.Kind == yaml.AliasNode {
		d.errAt(n, path, "YAML aliases (*%s) are not allowed: write the value out", n.Value)
		return
	}
	if d.depth >= depthMax {
		d.errAt(n, path, "nested more than %d levels deep", depthMax)
		return
	}
	d.depth++
	defer func() { d.depth-- }()
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeYAML(d, n, path, rl)
		return
	}
	r := parseRule(rl)
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) {
			v.SetZero()
			return
		}
		e := reflect.New(v.Type().Elem())
		if e.Type().Implements(defaulterType) {
			e.Interface().(defaulter).setDefaults()
		}
		d.decode(n, path, e.Elem(), rl)
		v.Set(e)
	case reflect.Struct:
		d.decodeStruct(n, path, []reflect.Value{v}, false)
	case reflect.Slice:
		d.decodeSlice(n, path, v, &r)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			d.errAt(n, path, "expected a string, found %s", describe(n))
			return
		}
		if msg := r.checkString(n.Value); msg != "" {
			d.errAt(n, path, "%s", msg)
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
			d.errAt(n, path, "expected true or false, found %s", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		d.decodeNumber(n, path, v, &r)
	default:
		d.errAt(n, path, "internal: cannot decode into %s", v.Type())
	}
}

// decodeNumber decodes a scalar number into an integer or float field.
// Integer fields accept whole-valued floats (1e6), so that large counts can
// be written compactly; the rule and the field's type both bound the value.
func (d *decoder) decodeNumber(n *yaml.Node, path string, v reflect.Value, r *rule) {
	if msg := overflowMsg(n, r); msg != "" {
		d.errAt(n, path, "%s", msg)
		return
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		d.errAt(n, path, "expected a number, found %s", describe(n))
		return
	}
	text := truncate(n.Value, 40)
	num, msg := parseNumber(n, text)
	if msg == "" {
		if msg = r.checkNumber(num.f, text); msg != "" {
			d.errAt(n, path, "%s", msg) // it names the allowed values itself
			return
		}
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			v.SetFloat(num.f)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			msg = num.setInt(v, text)
		default: // unsigned
			msg = num.setUint(v, text)
		}
	}
	if msg != "" {
		d.errAt(n, path, "%s%s", msg, rangeHint(r))
	}
}

// number is a YAML number as read: its value as a float, and for an
// integer its exact value, signed when it fits in an int64.
type number struct {
	f      float64
	i      int64
	u      uint64
	isInt  bool
	signed bool
}

// parseNumber reads n, an !!int or !!float scalar written text; the
// message says what is wrong with it, "" when nothing is.
func parseNumber(n *yaml.Node, text string) (num number, msg string) {
	if n.Tag != "!!int" {
		if err := n.Decode(&num.f); err != nil || math.IsNaN(num.f) || math.IsInf(num.f, 0) {
			return num, text + " is not a finite number"
		}
		return num, ""
	}
	num.isInt = true
	if n.Decode(&num.i) == nil {
		num.signed, num.f = true, float64(num.i)
		return num, ""
	}
	if n.Decode(&num.u) == nil {
		num.f = float64(num.u)
		return num, ""
	}
	return num, text + " does not fit in 64 bits"
}

// setInt sets v, of a signed kind, to the number, or says why it cannot.
func (num number) setInt(v reflect.Value, text string) string {
	i := num.i
	switch {
	case !num.isInt:
		if num.f != math.Trunc(num.f) || num.f < math.MinInt64 || num.f >= math.MaxInt64 {
			return text + " is not a whole number"
		}
		i = int64(num.f)
	case !num.signed:
		return text + " does not fit"
	}
	if v.OverflowInt(i) {
		return fmt.Sprintf("%s does not fit in %s", text, v.Type())
	}
	v.SetInt(i)
	return ""
}

// setUint sets v, of an unsigned kind, to the number, or says why it
// cannot.
func (num number) setUint(v reflect.Value, text string) string {
	u := num.u
	switch {
	case !num.isInt:
		if num.f != math.Trunc(num.f) || num.f < 0 || num.f >= math.MaxUint64 {
			return text + " is not a whole number >= 0"
		}
		u = uint64(num.f)
	case num.signed:
		if num.i < 0 {
			return text + " is negative"
		}
		u = uint64(num.i)
	}
	if v.OverflowUint(u) {
		return fmt.Sprintf("%s does not fit in %s", text, v.Type())
	}
	v.SetUint(u)
	return ""
}

func rangeHint(r *rule) string {
	switch {
	case len(r.oneOf) > 0:
		return "; allowed: " + strings.Join(r.oneOf, ", ")
	case r.hasRange:
		return "; allowed range " + r.rangeText()
	}
	return ""
}

func (d *decoder) decodeSlice(n *yaml.Node, path string, v reflect.Value, r *rule) {
	if isNull(n) {
		if msg := r.checkItems(0); msg != "" {
			d.errAt(n, path, "%s", msg)
		}
		v.SetLen(0)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errAt(n, path, "expected a list, found %s", describe(n))
		return
	}
	if msg := r.checkItems(len(n.Content)); msg != "" {
		d.errAt(n, path, "%s", msg)
		return
	}
	if len(n.Content) > itemsMax {
		d.errAt(n, path, "%d items, at most %d", len(n.Content), itemsMax)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	et := v.Type().Elem()
	for i, c := range n.Content {
		e := s.Index(i)
		if reflect.PointerTo(et).Implements(defaulterType) {
			e.Addr().Interface().(defaulter).setDefaults()
		}
		// Element rules: a list of numbers or strings takes the list's rule
		// minus its len clause.
		d.decode(c, joinPath(path, elemSeg(c, i)), e, elemRule(r.src))
	}
	v.Set(s)
}

func elemRule(src string) string {
	var keep []string
	for _, c := range strings.Fields(src) {
		if !strings.HasPrefix(c, "len:") {
			keep = append(keep, c)
		}
	}
	return strings.Join(keep, " ")
}

// elemSeg names list element i in a path: its `name` when it has a usable
// one (so errors and --set read generators.reads.outstanding), else its index.
func elemSeg(n *yaml.Node, i int) string {
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, val := n.Content[j], n.Content[j+1]
			if k.Value == "name" && val.Kind == yaml.ScalarNode && validName(val.Value) {
				return val.Value
			}
		}
	}
	return strconv.Itoa(i)
}

// validName reports whether s can name an object or generator: 1..64 of
// letters, digits, '_' and '-', starting with a letter.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// decodeStruct decodes a mapping into one or more structs (a generator's
// common fields and its kind's parameters share one mapping). A key that no
// target knows is an error listing the keys allowed, unless lenient (used
// when the kind is unknown and one error already says so).
func (d *decoder) decodeStruct(n *yaml.Node, path string, targets []reflect.Value, lenient bool, skip ...string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping of keys, found %s", describe(n))
		return
	}
	type tf struct {
		v reflect.Value
		f fieldInfo
	}
	var fields []tf
	for _, t := range targets {
		for _, f := range fieldsOf(t.Type()) {
			fields = append(fields, tf{t, f})
		}
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!merge") {
			d.errAt(k, path, "a key must be a plain name, found %s", describe(k))
			continue
		}
		if k.Tag == "!!merge" {
			d.errAt(k, path, "YAML merge keys (<<) are not allowed: write the keys out")
			continue
		}
		kp := joinPath(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			d.errAt(k, kp, "duplicate key (first at line %d)", first.Line)
			continue
		}
		seen[k.Value] = k
		if contains(skip, k.Value) {
			continue
		}
		found := false
		for _, x := range fields {
			if x.f.name == k.Value {
				d.decode(val, kp, x.v.Field(x.f.index), x.f.rule)
				found = true
				break
			}
		}
		if !found && !lenient {
			names := make([]string, 0, len(fields))
			for _, x := range fields {
				names = append(names, x.f.name)
			}
			for _, sk := range skip {
				if !contains(names, sk) {
					names = append(names, sk)
				}
			}
			d.errAt(k, kp, "unknown key; allowed here: %s", strings.Join(names, ", "))
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// mapValue returns the value node of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Kind == yaml.ScalarNode && n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
