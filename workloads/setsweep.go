package workloads

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// sweptSets reports each --set that changes a key the sweep varies, or a
// key inside one, or a mapping or list that holds one. The sweep sets its
// keys at every point after the overrides, so such an override would be
// replaced at every point without a word: the run would not be the one
// asked for. Paths are compared as keys of the document, so a list element
// named by its index and by its `name` is the same key. Overrides of the
// sweep itself (sweep, sweep_mode) are how a sweep is changed, and are
// left alone.
func sweptSets(name string, root *yaml.Node, sets []string, points [][]pointValue, origins map[*yaml.Node]string) Errors {
	if len(points) == 0 || len(points[0]) == 0 {
		return nil
	}
	var errs Errors
	for _, s := range sets {
		path, val, _ := strings.Cut(s, "=")
		path = strings.TrimSpace(path)
		segs := strings.Split(path, ".")
		if segs[0] == "sweep" || segs[0] == "sweep_mode" {
			continue
		}
		set := keyPath(root, segs)
		for _, pv := range points[0] {
			axis := keyPath(root, strings.Split(pv.path, "."))
			if !nested(set, axis) && !nested(axis, set) {
				continue
			}
			errs = append(errs, &Error{File: name, Origin: "--set " + truncate(s, 80),
				Msg: sweptSetMsg(name, len(set)-len(axis), strings.TrimSpace(val), pv, len(points[0]), origins)})
			break
		}
	}
	return errs
}

// sweptSetMsg says which sweep key an override of path collides with,
// where that key is, and how to run what was meant. depth is how many keys
// deeper the override's path is than the sweep's: below 0, the sweep's key
// lies inside the override's value; above 0, the override's key lies
// inside the swept value.
func sweptSetMsg(name string, depth int, val string, pv pointValue, axes int, origins map[*yaml.Node]string) string {
	where := fmt.Sprintf("%s:%d:%d", name, pv.key.Line, pv.key.Column)
	if org, ok := origins[pv.key]; ok {
		where = org
	}
	const after = "at every point after the overrides"
	switch {
	case depth < 0:
		return fmt.Sprintf("the sweep varies %s (%s), inside this override's value, and sets it %s, so the value given here for it would never be used; set the keys beside it one by one, or change the sweep with --set 'sweep={...}'", pv.path, where, after)
	case depth > 0:
		return fmt.Sprintf("this key lies inside %s, which the sweep varies (%s) and sets %s, so this value would never be used; change the sweep with --set 'sweep={...}'", pv.path, where, after)
	}
	msg := fmt.Sprintf("the sweep varies %s (%s) and sets it %s, so this value would never be used; to run it, replace the sweep: --set 'sweep={%s: [%s]}'", pv.path, where, after, pv.path, val)
	switch {
	case axes == 2:
		msg += " (which also drops the sweep's other key unless you list it)"
	case axes > 2:
		msg += fmt.Sprintf(" (which also drops the sweep's other %d keys unless you list them)", axes-1)
	}
	return msg
}

// sweptSeed reports a --seed given to a file whose sweep varies run.seed:
// the flag replaces every point's seed, so the points would run one seed
// under labels that name others.
func sweptSeed(name string, root *yaml.Node, seed *uint64, points [][]pointValue, origins map[*yaml.Node]string) Errors {
	if seed == nil || len(points) == 0 {
		return nil
	}
	for _, pv := range points[0] {
		if !nested([]string{"run", "seed"}, keyPath(root, strings.Split(pv.path, "."))) {
			continue
		}
		where := fmt.Sprintf("%s:%d:%d", name, pv.key.Line, pv.key.Column)
		if org, ok := origins[pv.key]; ok {
			where = org
		}
		return Errors{{File: name, Origin: fmt.Sprintf("--seed %d", *seed),
			Msg: fmt.Sprintf("the sweep varies %s (%s), and --seed would replace the seed of every point, which would then run one seed under labels that name others; leave out --seed, or replace the sweep's seeds with --set 'sweep={run.seed: [%d]}'", pv.path, where, *seed)}}
	}
	return nil
}

// keyPath is segs as the document's keys: a list element named by its
// `name` becomes its index. Segments past what root holds (keys an
// override would create) are kept as given.
func keyPath(root *yaml.Node, segs []string) []string {
	out := make([]string, len(segs))
	copy(out, segs)
	cur := root
	for i, seg := range segs {
		switch {
		case cur == nil:
			return out
		case cur.Kind == yaml.MappingNode:
			cur = mapValue(cur, seg)
		case cur.Kind == yaml.SequenceNode:
			j, err := seqIndex(cur, seg, segs[:i])
			if err != nil {
				return out
			}
			out[i] = strconv.Itoa(j)
			cur = cur.Content[j]
		default:
			return out
		}
	}
	return out
}

// nested reports whether path a is b or lies inside it.
func nested(a, b []string) bool {
	if len(a) < len(b) {
		return false
	}
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
