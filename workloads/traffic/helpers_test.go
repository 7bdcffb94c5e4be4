package traffic

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// load loads a workload from src (named w.yaml), which must be valid.
func load(t *testing.T, src string, sets ...string) *workloads.File {
	t.Helper()
	f, err := workloads.LoadBytes("w.yaml", []byte(src), workloads.Options{Sets: sets})
	require.NoError(t, err)
	return f
}

// loadErr loads src and returns the error text (failing if it loaded).
func loadErr(t *testing.T, src string, sets ...string) string {
	t.Helper()
	_, err := workloads.LoadBytes("w.yaml", []byte(src), workloads.Options{Sets: sets})
	require.Error(t, err, "file should be invalid:\n%s", src)
	var es workloads.Errors
	require.ErrorAs(t, err, &es)
	return err.Error()
}

// runSrc loads src and runs every point.
func runSrc(t *testing.T, src string, sets ...string) *results.Result {
	t.Helper()
	r, err := RunFile(load(t, src, sets...), RunOptions{})
	require.NoError(t, err)
	return r
}

// runBuiltin runs a built-in workload of the workloads folder.
func runBuiltin(t *testing.T, file string, sets ...string) *results.Result {
	t.Helper()
	path := filepath.Join("..", file)
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := workloads.LoadBytes(path, src, workloads.Options{Sets: sets})
	require.NoError(t, err)
	r, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	return r
}

// writeTemp writes body to a workload file in a temporary folder.
func writeTemp(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}
