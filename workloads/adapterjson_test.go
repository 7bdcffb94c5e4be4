package workloads

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/nic"
)

// TestAdapterJSONLeavesOutTheNICsTPT: the nic section of an adapter's JSON
// holds every field of nic.Spec but tpt (the mtt section), in the spec's
// field order, and decodes back to the same spec.
func TestAdapterJSONLeavesOutTheNICsTPT(t *testing.T) {
	for _, p := range Presets() {
		b, err := json.Marshal(p.Adapter)
		require.NoError(t, err, p.Name)
		var sections map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &sections), p.Name)
		nicJSON := sections["nic"]

		var want []string
		st := reflect.TypeFor[nic.Spec]()
		for i := range st.NumField() {
			if name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ","); name != "tpt" {
				want = append(want, name)
			}
		}
		require.Equal(t, want, topKeys(t, nicJSON), p.Name)

		var back nic.Spec
		require.NoError(t, json.Unmarshal(nicJSON, &back), p.Name)
		back.TPT = p.Adapter.NIC.TPT
		require.Equal(t, p.Adapter.NIC, back, p.Name)
	}
}

// topKeys lists the keys of a JSON object in order.
func topKeys(t *testing.T, obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
	}
	return keys
}

// TestFileViewKeepsExportedFieldsAndDropsUnexportedOnes: the view of a
// type keeps its exported fields in order, with their tags and embedding,
// and drops unexported ones, as encoding/json does; a type modelSkip does
// not name loses no other field (an untagged one included).
func TestFileViewKeepsExportedFieldsAndDropsUnexportedOnes(t *testing.T) {
	type Inner struct {
		C int `json:"c"`
	}
	type spec struct {
		A      int `json:"a"`
		hidden int
		Inner
		B string `json:"b"`
	}
	v := newFileView(reflect.TypeFor[spec]())
	require.Equal(t, []int{0, 2, 3}, v.from)
	b, err := json.Marshal(v.of(reflect.ValueOf(spec{A: 1, hidden: 2, Inner: Inner{C: 3}, B: "x"})))
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1,"c":3,"b":"x"}`, string(b))
}
