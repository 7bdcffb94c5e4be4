package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// merge never writes its output over one of its input shards: an --out
// that is, or lies in, a shard folder, or holds one, is refused.
func TestMergeRefusesOutInsideAnInputShard(t *testing.T) {
	root := t.TempDir()
	f := writeFile(t, root, "nine.yaml", nineRun)
	var shards []string
	for i := range 3 {
		d := filepath.Join(root, fmt.Sprintf("sh%d", i))
		code, _, stderr := nicsim(t, "sweep", f, "--quiet", "--no-plots", "--shard", fmt.Sprintf("%d/3", i), "--out", d)
		require.Equal(t, exitOK, code, stderr)
		shards = append(shards, d)
	}
	before := readFile(t, filepath.Join(shards[0], "results.json"))
	for _, c := range []struct{ out, msg string }{
		{shards[0], "is, or lies in, the shard folder " + shards[0]},
		{shards[1] + "/", "is, or lies in, the shard folder " + shards[1]},
		{filepath.Join(shards[2], "merged"), "is, or lies in, the shard folder " + shards[2]},
		{root, "holds the shard folder " + shards[0]},
	} {
		args := append([]string{"merge", "--no-plots", "--force", "--out", c.out}, shards...)
		code, _, stderr := nicsim(t, args...)
		require.Equal(t, exitUsage, code, c.out)
		require.Contains(t, stderr, "nicsim merge: --out "+c.out+" "+c.msg, c.out)
	}
	require.Equal(t, before, readFile(t, filepath.Join(shards[0], "results.json")))
	require.NoDirExists(t, filepath.Join(shards[2], "merged"))
}
