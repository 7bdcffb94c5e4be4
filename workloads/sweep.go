package workloads

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limits on a sweep.
const (
	SweepAxesMax   = 8
	SweepValuesMax = 64   // values per axis
	SweepPointsMax = 4096 // points of a sweep (product of the axes)
)

// SweepAxis is one key of a sweep and its values.
type SweepAxis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
	// Zip is set on every axis of a zipped sweep (sweep_mode: zip): point i
	// takes value i of each axis instead of the cartesian product.
	Zip bool `json:"zip,omitempty"`
}

// pointValue is one axis's value at one point: the path it sets, the value
// node, and the value as labels show it.
type pointValue struct {
	path  string
	key   *yaml.Node // the key under sweep, where a problem with the path is reported
	value *yaml.Node
	text  string
}

// sweep removes the top-level `sweep` and `sweep_mode` keys and returns the
// axes and the points: the cartesian product (first axis outermost), or with
// sweep_mode: zip, point i takes value i of every axis. Without a sweep
// there is one point with no overrides. With any problem there are no
// points.
func (d *decoder) sweep(root *yaml.Node) ([]SweepAxis, [][]pointValue) {
	sn, mn := takeSweep(root)
	zip, ok := d.sweepMode(mn)
	if !ok {
		return nil, nil
	}
	if sn == nil || isNull(sn) {
		if zip {
			d.errAt(mn, "sweep_mode", "sweep_mode without a sweep")
			return nil, nil
		}
		return nil, [][]pointValue{nil}
	}
	if sn.Kind != yaml.MappingNode {
		d.errAt(sn, "sweep", "expected a mapping of key path: [values], found %s", describe(sn))
		return nil, nil
	}
	if len(sn.Content) == 0 {
		d.errAt(sn, "sweep", "an empty mapping; give at least one key path with its values (regions.data.pages: [512, 4096]), or leave sweep out")
		return nil, nil
	}
	if len(sn.Content)/2 > SweepAxesMax {
		d.errAt(sn, "sweep", "%d keys, at most %d", len(sn.Content)/2, SweepAxesMax)
		return nil, nil
	}
	errs := len(d.errs)
	axes, keys, cols := d.sweepAxes(sn, zip)
	if len(axes) == 0 || len(d.errs) > errs {
		return nil, nil
	}
	if zip {
		points := zipPoints(axes, keys, cols)
		if !d.distinctPoints(points) {
			return nil, nil
		}
		return axes, points
	}
	points, ok := cartesianPoints(axes, keys, cols)
	if !ok {
		d.errAt(sn, "sweep", "more than %d points (the product of the value counts)", SweepPointsMax)
		return nil, nil
	}
	return axes, points
}

// distinctPoints reports a zipped point that repeats an earlier one (at its
// first axis's value): points are known by their label, so a repeat could
// never be merged.
func (d *decoder) distinctPoints(points [][]pointValue) bool {
	first := map[string]int{}
	ok := true
	for j, p := range points {
		l := pointLabel(p)
		if i, dup := first[l]; dup {
			d.errAt(p[0].value, "sweep", "point %d (%s) repeats point %d; a sweep's points must differ", j, l, i)
			ok = false
			continue
		}
		first[l] = j
	}
	return ok
}

func pointLabel(p []pointValue) string {
	o := make([]Override, len(p))
	for i, v := range p {
		o[i] = Override{Path: v.path, Value: v.text}
	}
	return Label(o)
}

// takeSweep removes the top-level sweep and sweep_mode keys from root and
// returns their values (nil when absent).
func takeSweep(root *yaml.Node) (sn, mn *yaml.Node) {
	for i := 0; i+1 < len(root.Content); {
		switch root.Content[i].Value {
		case "sweep":
			sn = root.Content[i+1]
		case "sweep_mode":
			mn = root.Content[i+1]
		default:
			i += 2
			continue
		}
		root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
	}
	return sn, mn
}

// sweepMode decodes sweep_mode: cartesian (the default) or zip.
func (d *decoder) sweepMode(mn *yaml.Node) (zip, ok bool) {
	switch {
	case mn == nil:
	case mn.Kind == yaml.ScalarNode && mn.Value == "cartesian":
	case mn.Kind == yaml.ScalarNode && mn.Value == "zip":
		zip = true
	default:
		d.errAt(mn, "sweep_mode", "expected cartesian or zip, found %s", describe(mn))
		return false, false
	}
	return zip, true
}

// sweepAxes decodes the sweep's keys: each a dotted path with a list of
// values (of one length when zipped). It returns the axes, each axis's key
// node and each axis's value nodes.
func (d *decoder) sweepAxes(sn *yaml.Node, zip bool) ([]SweepAxis, []*yaml.Node, [][]*yaml.Node) {
	var axes []SweepAxis
	var keys []*yaml.Node
	var cols [][]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(sn.Content); i += 2 {
		k, v := sn.Content[i], sn.Content[i+1]
		kp := "sweep." + k.Value
		if k.Kind != yaml.ScalarNode || k.Value == "" || strings.Contains(k.Value, "..") || strings.HasPrefix(k.Value, ".") ||
			strings.HasSuffix(k.Value, ".") || strings.HasPrefix(k.Value, "sweep") {
			d.errAt(k, "sweep", "a sweep key is a dotted path such as regions.data.pages, found %s", describe(k))
			continue
		}
		if seen[k.Value] {
			d.errAt(k, kp, "duplicate key")
			continue
		}
		seen[k.Value] = true
		switch {
		case v.Kind != yaml.SequenceNode:
			d.errAt(v, kp, "expected a list of 1..%d values, found %s", SweepValuesMax, describe(v))
			continue
		case len(v.Content) == 0:
			d.errAt(v, kp, "an empty list; give 1..%d values", SweepValuesMax)
			continue
		case len(v.Content) > SweepValuesMax:
			d.errAt(v, kp, "a list of %d values; at most %d", len(v.Content), SweepValuesMax)
			continue
		case !zip && !d.distinctValues(v, kp):
			continue
		}
		if zip && len(cols) > 0 && len(v.Content) != len(cols[0]) {
			d.errAt(v, kp, "a zipped sweep needs lists of one length: %s has %d values, %s has %d",
				k.Value, len(v.Content), axes[0].Path, len(cols[0]))
			continue
		}
		ax := SweepAxis{Path: k.Value, Zip: zip}
		for _, val := range v.Content {
			ax.Values = append(ax.Values, nodeText(val))
		}
		axes = append(axes, ax)
		keys = append(keys, k)
		cols = append(cols, v.Content)
	}
	return axes, keys, cols
}

// distinctValues reports a value given twice in one axis of a cartesian
// sweep (its points would repeat).
func (d *decoder) distinctValues(v *yaml.Node, kp string) bool {
	first := map[string]*yaml.Node{}
	for _, val := range v.Content {
		t := nodeText(val)
		if f, dup := first[t]; dup {
			d.errAt(val, kp, "%s is given twice (first at %d:%d); a sweep's points must differ", t, f.Line, f.Column)
			return false
		}
		first[t] = val
	}
	return true
}

// zipPoints are the points of a zipped sweep: point j takes value j of
// every axis.
func zipPoints(axes []SweepAxis, keys []*yaml.Node, cols [][]*yaml.Node) [][]pointValue {
	var points [][]pointValue
	for j := range cols[0] {
		var p []pointValue
		for a, col := range cols {
			p = append(p, pointValue{path: axes[a].Path, key: keys[a], value: col[j], text: nodeText(col[j])})
		}
		points = append(points, p)
	}
	return points
}

// cartesianPoints are the points of a cartesian sweep, first axis
// outermost; false when there would be more than SweepPointsMax.
func cartesianPoints(axes []SweepAxis, keys []*yaml.Node, cols [][]*yaml.Node) ([][]pointValue, bool) {
	points := [][]pointValue{nil}
	for a, col := range cols {
		var next [][]pointValue
		for _, p := range points {
			for _, val := range col {
				q := append(append([]pointValue(nil), p...), pointValue{path: axes[a].Path, key: keys[a], value: val, text: nodeText(val)})
				next = append(next, q)
			}
			if len(next) > SweepPointsMax {
				return nil, false
			}
		}
		points = next
	}
	return points, true
}

// nodeText is a compact form of a value node for labels.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	c.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&c)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// Label formats a sweep point as path=value pairs.
func Label(point []Override) string {
	parts := make([]string, len(point))
	for i, o := range point {
		parts[i] = o.Path + "=" + o.Value
	}
	return strings.Join(parts, " ")
}

// CheckSweepAxes checks axes read back from a results file before their
// points are counted or labelled: at most SweepAxesMax axes of 1 to
// SweepValuesMax values, of one length when zipped, at most SweepPointsMax
// points.
func CheckSweepAxes(axes []SweepAxis) error {
	if len(axes) > SweepAxesMax {
		return fmt.Errorf("%d sweep axes, at most %d", len(axes), SweepAxesMax)
	}
	points := 1
	for _, ax := range axes {
		n := len(ax.Values)
		switch {
		case n == 0 || n > SweepValuesMax:
			return fmt.Errorf("sweep axis %q has %d values, want 1..%d", ax.Path, n, SweepValuesMax)
		case ax.Zip != axes[0].Zip || ax.Zip && n != len(axes[0].Values):
			return fmt.Errorf("sweep axis %q does not zip with %q", ax.Path, axes[0].Path)
		case !ax.Zip:
			points *= n
		}
		if points > SweepPointsMax {
			return fmt.Errorf("the sweep has more than %d points", SweepPointsMax)
		}
	}
	return nil
}

// SweepLabels returns the label of every point of a sweep over axes, in
// sweep order (cartesian product, first axis outermost, or zipped), as the
// loader labels them. Without axes there is one unlabelled point.
func SweepLabels(axes []SweepAxis) []string {
	if len(axes) == 0 {
		return []string{""}
	}
	var out []string
	pt := make([]Override, len(axes))
	if axes[0].Zip {
		for j := range axes[0].Values {
			for a, ax := range axes {
				if j < len(ax.Values) {
					pt[a] = Override{Path: ax.Path, Value: ax.Values[j]}
				}
			}
			out = append(out, Label(pt))
		}
		return out
	}
	var rec func(int)
	rec = func(a int) {
		if a == len(axes) {
			out = append(out, Label(pt))
			return
		}
		for _, v := range axes[a].Values {
			pt[a] = Override{Path: axes[a].Path, Value: v}
			rec(a + 1)
		}
	}
	rec(0)
	return out
}

// ShardsMax bounds --shard n.
const ShardsMax = 4096

// ShardPoints returns the indices of the points that shard i of n runs:
// i, i+n, i+2n, ... (round robin, so neighbouring points spread over shards).
func ShardPoints(total, shard, shards int) ([]int, error) {
	if shards < 2 {
		shards, shard = 1, 0
	}
	if shards > ShardsMax {
		return nil, fmt.Errorf("shards %d is above the limit of %d", shards, ShardsMax)
	}
	if shard < 0 || shard >= shards {
		return nil, fmt.Errorf("shard %d is out of range 0..%d", shard, shards-1)
	}
	var idx []int
	for i := shard; i < total; i += shards {
		idx = append(idx, i)
	}
	return idx, nil
}
