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
