package workloads

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary files and --set overrides to the loader: it must
// never panic, and every failure must be a list of located errors.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	builtin, _ := filepath.Glob("*.yaml")
	for _, p := range append(files, builtin...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "adapter.pcie.lanes=16")
		f.Add(b, "generators.0.size_bytes={uniform: {min: 1, max: 9}}")
	}
	f.Add([]byte("a: &x [*x]\n"), "")
	f.Add([]byte("run: {duration_us: 5}\ngenerators: [{kind: translate}]\nsweep: {run.seed: [1,2]}\n"), "sweep.x=1")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		file, err := LoadBytes("fuzz.yaml", data, Options{Sets: sets})
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a located list: %v", err)
			}
			for _, e := range es {
				if e.File != "fuzz.yaml" || e.Msg == "" {
					t.Fatalf("error without file or message: %#v", e)
				}
				if strings.Contains(e.Msg, "YAML parser failed") {
					t.Fatalf("the YAML parser panicked: %v", e)
				}
			}
			return
		}
		if len(file.Points) == 0 {
			t.Fatal("a valid file with no points")
		}
	})
}
