package workloads

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// applyPoint sets a sweep point's values in r, a copy of the document. A
// key a point's path adds (one the file does not have, such as nosuch in
// sweep: {nosuch.key: [1, 2]}) is placed at the sweep key that names it,
// with that key's origin when a --set gave the sweep: added maps each such
// node to the sweep key's path (sweep.nosuch.key), which the decoder's
// errors name. A path that cannot be set is an error at its sweep key.
func applyPoint(name string, r *yaml.Node, pt []pointValue, origins map[*yaml.Node]string) (added map[*yaml.Node]string, errs Errors) {
	added = map[*yaml.Node]string{}
	for _, o := range pt {
		val := cloneNode(o.value, origins) // keeps its place in the sweep's list
		mark := func(n *yaml.Node) {
			if n == val {
				return
			}
			n.Line, n.Column = o.key.Line, o.key.Column
			if org, ok := origins[o.key]; ok {
				origins[n] = org
			}
			added[n] = "sweep." + o.path
		}
		err := setPath(r, strings.Split(o.path, "."), val, mark)
		if err != nil {
			e := &Error{File: name, Line: o.key.Line, Col: o.key.Column, Path: "sweep." + o.path, Msg: err.Error()}
			if org, ok := origins[o.key]; ok {
				e.Line, e.Col, e.Origin = 0, 0, org
			}
			errs = append(errs, e)
		}
	}
	return added, errs
}
