package workloads

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryKeyIsDocumented keeps docs/workloads.md in step with the schema:
// every key a file can hold appears in it as `key`.
func TestEveryKeyIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/workloads.md")
	require.NoError(t, err)
	doc := string(b)
	types := []reflect.Type{reflect.TypeFor[Workload](), reflect.TypeFor[Run](), reflect.TypeFor[Region](),
		reflect.TypeFor[Generator](), reflect.TypeFor[Arrival]()}
	for _, k := range Kinds() {
		if k.Params != nil {
			types = append(types, reflect.TypeOf(k.Params()).Elem())
		}
		if !strings.HasPrefix(k.Name, "test_") {
			require.Contains(t, doc, "`"+k.Name+"`", "kind %s", k.Name)
		}
	}
	for _, ty := range types {
		for _, f := range fieldsOf(ty) {
			if f.name == "adapter" || f.name == "regions" || f.name == "generators" || f.name == "run" {
				continue
			}
			require.Contains(t, doc, "`"+f.name+"`", "key %s of %s", f.name, ty)
		}
	}
	for _, p := range PresetNames() {
		require.Contains(t, doc, "`"+p+"`")
	}
}
