package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limits on what a file can ask for, besides each key's own range.
const (
	FileBytesMax    = 1 << 20 // a workload file is at most 1 MiB
	OverridesMax    = 256     // --set flags
	overridePathMax = 256
)

// Options change a file as it is loaded.
type Options struct {
	// Sets are `path=value` overrides applied to the parsed document
	// before anything is checked, in order, with the same errors as the
	// file: path is dotted (adapter.pcie.lanes, generators.reads.outstanding,
	// generators.0.size_bytes); value is YAML (32, poisson, {uniform: {min: 1, max: 8}}).
	Sets []string
	// Seed, when set, replaces run.seed.
	Seed *uint64
}

// File is a loaded, valid workload file: one workload per sweep point (one
// when the file has no sweep). Nothing is returned for an invalid file.
type File struct {
	Path   string      // as given
	Stem   string      // base name without extension
	Points []*Workload // resolved and validated, in sweep order
	Sweep  []SweepAxis // the sweep's axes, in file order
}

// Load reads, overrides, decodes and validates a workload file. The error,
// when not an I/O error, is Errors: every problem found, each with
// file:line:col (or the --set that caused it), key path and allowed range.
func Load(path string, opts Options) (*File, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadBytes(path, data, opts)
}

// Stem is a path's base name without its .yaml or .yml extension.
func Stem(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".yaml", ".yml"} {
		if s, ok := strings.CutSuffix(b, ext); ok {
			return s
		}
	}
	return b
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseDocument reads exactly one YAML document whose root is a mapping,
// as workload and scenario files are: at most FileBytesMax bytes, no second
// document; a syntax error names its line and column (syntax.go). name is
// used in messages.
func ParseDocument(name string, data []byte) (root *yaml.Node, errs Errors) {
	fail := func(line int, format string, args ...any) (*yaml.Node, Errors) {
		return nil, Errors{{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(data) > FileBytesMax {
		return fail(0, "file is larger than %d bytes", FileBytesMax)
	}
	defer func() {
		if r := recover(); r != nil {
			root, errs = fail(0, "YAML parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fail(0, "empty file: a workload needs at least generators and run")
		}
		msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		return nil, Errors{syntaxError(name, data, line, msg)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := 0
		if err == nil {
			line = extra.Line
		}
		return fail(line, "more than one YAML document (---): a workload file holds one")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fail(0, "empty file: a workload needs at least generators and run")
	}
	r := doc.Content[0]
	if r.Kind != yaml.MappingNode {
		return nil, Errors{{File: name, Line: r.Line, Col: r.Column, Msg: "the top level must be a mapping of keys (name, adapter, run, regions, generators, sweep, sweep_mode), found " + describe(r)}}
	}
	return r, nil
}

// LoadBytes is Load on data already read; name is used in messages.
func LoadBytes(name string, data []byte, opts Options) (*File, error) {
	root, perrs := ParseDocument(name, data)
	if perrs != nil {
		return nil, perrs
	}
	return LoadNode(name, root, opts)
}

// LoadNode is Load on a document ParseDocument has parsed: root is its
// top-level mapping. Files that wrap a workload in more keys (the
// validation files) remove theirs and load the rest here; errors keep the
// nodes' lines and columns.
func LoadNode(name string, root *yaml.Node, opts Options) (*File, error) {
	origins := map[*yaml.Node]string{}
	d := newDecoder(name, origins)
	if len(opts.Sets) > OverridesMax {
		return nil, Errors{{File: name, Origin: "--set", Msg: fmt.Sprintf("%d overrides, at most %d", len(opts.Sets), OverridesMax)}}
	}
	var applied []string
	for _, s := range opts.Sets {
		if err := applySet(root, s, origins); err != nil {
			d.errs = append(d.errs, &Error{File: name, Origin: "--set " + truncate(s, 80), Msg: err.Error()})
			continue
		}
		applied = append(applied, s)
	}
	sweepNode := mapValue(root, "sweep")
	axes, points := d.sweep(root)
	d.errs = append(d.errs, sweptSets(name, root, applied, points, origins)...)
	d.errs = append(d.errs, sweptSeed(name, root, opts.Seed, points, origins)...)
	if len(points) == 0 {
		if len(d.errs) == 0 {
			d.errAt(root, "sweep", "the sweep has no points") // not reached: sweep reports why
		}
		return nil, d.errs
	}
	f := &File{Path: name, Stem: Stem(name), Sweep: axes}
	all := d.errs
	seen := map[string]bool{}
	for k, pt := range points {
		if len(all) > 0 && k > 0 {
			// Stop at the first point with an error: the same errors would
			// come back from every point, each costing a decode of the
			// whole file.
			msg := fmt.Sprintf("the other %d points were not checked: fix the errors above first", len(points)-k)
			if len(points)-k == 1 {
				msg = "the other point was not checked: fix the errors above first"
			}
			all = append(all, &Error{File: name, Path: "sweep", Msg: msg})
			break
		}
		r := cloneNode(root, origins)
		added, perrs := applyPoint(name, r, pt, origins)
		all = append(all, perrs...)
		w, errs := decodeWorkload(name, r, origins, added, opts)
		for _, e := range errs {
			if s := e.Error(); !seen[s] && len(all) < ErrorsMax {
				seen[s] = true
				all = append(all, e)
			}
		}
		if w != nil {
			for _, o := range pt {
				w.Point = append(w.Point, Override{Path: o.path, Value: o.text})
			}
			f.Points = append(f.Points, w)
		}
	}
	if len(all) == 0 {
		all = f.checkMemory(sweepNode)
	}
	if len(all) > 0 {
		return nil, all
	}
	return f, nil
}

// decodeWorkload decodes and validates one point's document; added are the
// nodes its sweep point added, with the sweep key's path (applyPoint).
func decodeWorkload(name string, root *yaml.Node, origins, added map[*yaml.Node]string, opts Options) (*Workload, Errors) {
	d := newDecoder(name, origins)
	d.added = added
	w := &Workload{}
	w.setDefaults()
	d.nodes[""] = root
	d.decodeStruct(root, "", []reflect.Value{reflect.ValueOf(w).Elem()}, false, "sweep")
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	if w.Name == "" {
		w.Name = Stem(name)
	}
	if opts.Seed != nil {
		w.Run.Seed = *opts.Seed
	}
	d.validate(w)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return w, nil
}

// applySet applies one --set path=value to the document.
func applySet(root *yaml.Node, s string, origins map[*yaml.Node]string) error {
	path, val, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return fmt.Errorf("expected path=value, such as adapter.pcie.lanes=16")
	}
	if len(path) > overridePathMax {
		return fmt.Errorf("path longer than %d characters", overridePathMax)
	}
	segs := strings.Split(path, ".")
	for _, sg := range segs {
		if sg == "" {
			return fmt.Errorf("path %q has an empty segment", path)
		}
	}
	vn, err := parseValue(val)
	if err != nil {
		return err
	}
	label := "--set " + truncate(s, 80)
	markOrigin(vn, label, origins)
	return setPath(root, segs, vn, func(n *yaml.Node) { origins[n] = label })
}

// parseValue parses an override's value as YAML (a scalar, or a flow
// mapping or list). An empty value is null.
func parseValue(val string) (*yaml.Node, error) {
	var doc yaml.Node
	if len(val) > 4096 {
		return nil, fmt.Errorf("value longer than 4096 characters")
	}
	if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML: %s", truncate(val, 40), strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}, nil
	}
	return doc.Content[0], nil
}

func markOrigin(n *yaml.Node, label string, origins map[*yaml.Node]string) {
	origins[n] = label
	for _, c := range n.Content {
		markOrigin(c, label, origins)
	}
}

// setPath sets the value at segs below root, creating mappings for missing
// keys. A list element is named by its index or by its `name`. created, if
// not nil, is told about every node made here.
func setPath(root *yaml.Node, segs []string, val *yaml.Node, created func(*yaml.Node)) error {
	cur := root
	for i, seg := range segs {
		last := i == len(segs)-1
		if isNull(cur) {
			*cur = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
		}
		switch cur.Kind {
		case yaml.MappingNode:
			cur = mapChild(cur, seg, last, val, created)
		case yaml.SequenceNode:
			j, err := seqIndex(cur, seg, segs[:i])
			if err != nil {
				return err
			}
			if last {
				cur.Content[j] = val
				return nil
			}
			cur = cur.Content[j]
		default:
			return fmt.Errorf("%s is %s, not a mapping or list, so it has no %q", pathText(segs[:i]), describe(cur), seg)
		}
	}
	return nil
}

// mapChild is the value of key seg of the mapping m, added (as a mapping,
// or as val when last) when m has no such key; when last, val replaces the
// value of a key m has. created is told about every node added.
func mapChild(m *yaml.Node, seg string, last bool, val *yaml.Node, created func(*yaml.Node)) *yaml.Node {
	j := -1
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == seg {
			j = k
		}
	}
	if j >= 0 {
		if last {
			m.Content[j+1] = val
		}
		return m.Content[j+1]
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
	next := val
	if !last {
		next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if created != nil {
		created(key)
		created(next)
	}
	m.Content = append(m.Content, key, next)
	return next
}

// seqIndex is the index of the element seg names in the list l at path
// here: its index, or the element whose `name` it is.
func seqIndex(l *yaml.Node, seg string, here []string) (int, error) {
	if idx, err := strconv.Atoi(seg); err == nil {
		if idx < 0 || idx >= len(l.Content) {
			return 0, fmt.Errorf("%s has %d elements; no element %d", pathText(here), len(l.Content), idx)
		}
		return idx, nil
	}
	for k, c := range l.Content {
		if elemSeg(c, k) == seg {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%s has no element named %q (name an element by its index or its name)", pathText(here), seg)
}

// pathText names the node at segs in a message.
func pathText(segs []string) string {
	if len(segs) == 0 {
		return "the top level"
	}
	return strings.Join(segs, ".")
}

// cloneNode deep-copies a node tree, keeping override origins.
func cloneNode(n *yaml.Node, origins map[*yaml.Node]string) *yaml.Node {
	c := *n
	if o, ok := origins[n]; ok {
		origins[&c] = o
	}
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = cloneNode(x, origins)
		}
	}
	return &c
}
