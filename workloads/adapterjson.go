package workloads

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
)

// MarshalJSON writes the adapter as a file holds it: the nic section
// without its tpt (which is the mtt section), so a resolved config.json
// point loads back as a workload. Field order is kept.
func (a Adapter) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Preset string       `json:"preset"`
		PCIe   pcie.Spec    `json:"pcie"`
		MTT    mtt.Spec     `json:"mtt"`
		NIC    any          `json:"nic"`
		Wire   nic.WireSpec `json:"wire"`
	}{a.Preset, a.PCIe, a.MTT, nicFile.of(reflect.ValueOf(a.NIC)), a.Wire})
}

// nicFile is nic.Spec as a file holds it: a struct type built once with
// every field of nic.Spec but the one modelSkip names, in order, with
// their tags. Encoding a value of it costs what encoding nic.Spec does.
var nicFile = newFileView(reflect.TypeFor[nic.Spec]())

// fileView is a struct type without one field of another, and the index
// in the other of each of its fields.
type fileView struct {
	t    reflect.Type
	from []int
}

// newFileView builds the view of t without its modelSkip field (and its
// unexported fields, which encoding/json leaves out too).
func newFileView(t reflect.Type) fileView {
	var v fileView
	var fields []reflect.StructField
	skip, skips := modelSkip[t]
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); !f.IsExported() || skips && name == skip {
			continue // encoding/json writes no unexported field
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag, Anonymous: f.Anonymous})
		v.from = append(v.from, i)
	}
	v.t = reflect.StructOf(fields)
	return v
}

// of copies the fields of src, a value of the viewed type, into a value of
// the view.
func (v fileView) of(src reflect.Value) any {
	dst := reflect.New(v.t).Elem()
	for i, j := range v.from {
		dst.Field(i).Set(src.Field(j))
	}
	return dst.Addr().Interface()
}
