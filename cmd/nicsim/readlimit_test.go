package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// compare and merge read a results file only if it is a regular file of
// at most results.OutputFileBytesMax bytes: /dev/zero, or a file past the
// limit, is refused at once, saying why.
func TestCompareAndMergeRefuseNonRegularAndOversizedResults(t *testing.T) {
	base := runWorkload(t, "pcie-dma.yaml", "--no-plots")
	big := filepath.Join(t.TempDir(), "results.json")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, results.OutputFileBytesMax+1)) // sparse: no disk used
	shard := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(shard, "results.json")))
	limit := fmt.Sprintf("larger than %d bytes (4 GiB)", int64(results.OutputFileBytesMax))
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compare", "/dev/zero", base}, exitUsage, "base: reading results: /dev/zero is not a regular file (a device)"},
		{[]string{"compare", base, big}, exitUsage, "new: reading results: " + big + " is " + limit},
		{[]string{"compare", "--format", "benchfmt", big}, exitUsage, limit},
		{[]string{"merge", "--out", filepath.Join(t.TempDir(), "m"), shard}, exitFailed, filepath.Join(shard, "results.json") + " is not a regular file (a device)"},
	} {
		code, _, stderr := nicsimWithin(t, 10*time.Second, c.args...)
		require.Equal(t, c.code, code, "%v", c.args)
		require.Contains(t, stderr, c.msg, "%v", c.args)
	}
}
