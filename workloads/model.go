package workloads

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
)

// DecodeModel decodes the mapping n, found at path in file, over *spec, a
// model spec (nic.Spec, nic.WireSpec, pcie.Spec, mtt.Spec) that holds its
// defaults, as a workload file's adapter section is decoded: keys by JSON
// name, every value within the rules of modelRules (so a scenario's host
// cannot ask for more than a workload file can), then the spec's own
// Validate. A nic.Spec's `tpt` is decoded as an mtt.Spec. Every problem
// names file:line:col; nil when there is none.
func DecodeModel(file string, n *yaml.Node, path string, spec any) Errors {
	d := newDecoder(file, nil)
	d.nodes[""] = n
	d.nodes[path] = n
	v := reflect.ValueOf(spec).Elem()
	s, isNIC := spec.(*nic.Spec)
	if !isNIC {
		d.decodeStruct(n, path, []reflect.Value{v}, false)
	} else {
		d.decodeStruct(n, path, []reflect.Value{v}, false, "tpt")
		if t := mapValue(n, "tpt"); t != nil {
			d.decode(t, joinPath(path, "tpt"), reflect.ValueOf(&s.TPT).Elem(), "")
		}
	}
	if len(d.errs) == 0 {
		if m, ok := spec.(interface{ Validate() error }); ok {
			d.reportValidate(path, v.Type(), m.Validate())
		}
	}
	return d.errs
}

// reportValidate reports each line of a model's Validate error (one
// problem per line, "pkg: field = value, want ...") at the key it names,
// below path; t is the spec's type, whose JSON names the keys are.
func (d *decoder) reportValidate(path string, t reflect.Type, err error) {
	if err == nil {
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		msg, sub := line, ""
		if pkg, rest, ok := strings.Cut(line, ": "); ok {
			msg = rest
			if pkg == "mtt" && t == reflect.TypeFor[nic.Spec]() {
				sub = "tpt" // the NIC's translation unit reports as package mtt
			}
		}
		key := ""
		if name, rest, ok := strings.Cut(msg, " = "); ok && !strings.ContainsAny(name, " ") {
			key = name
			if j := jsonName(t, name); j != "" {
				key = j
			}
			key = joinPath(sub, key)
			msg = rest
		}
		d.errPath(joinPath(path, key), "%s", msg)
	}
}
