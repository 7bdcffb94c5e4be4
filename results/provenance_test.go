package results

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// TestProvenanceNamesTheCommitOfTheCheckout: run from inside a checkout
// (as go run and go test are), the provenance holds that checkout's HEAD
// and a dirty flag; built with VCS stamping, the build info's.
func TestProvenanceNamesTheCommitOfTheCheckout(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("no git checkout here")
	}
	when, err := exec.Command("git", "show", "-s", "--format=%cI", "HEAD").Output()
	require.NoError(t, err)
	p := findProvenance()
	require.Contains(t, []string{"checkout", "build info"}, p.Source)
	require.Equal(t, strings.TrimSpace(string(head)), p.Commit)
	if p.Source == "checkout" {
		require.Equal(t, strings.TrimSpace(string(when)), p.CommitTime)
	}
	require.NotNil(t, p.Dirty)
	require.NotEmpty(t, p.Module)
}

// TestCheckoutTopIsTheNearestDirectoryWithGit: the checkout is found by
// walking up from the working directory to a .git entry, a directory or a
// worktree's link file; outside any, there is none.
func TestCheckoutTopIsTheNearestDirectoryWithGit(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644))
	t.Chdir(deep)
	top, ok := checkoutTop()
	require.True(t, ok)
	want, err := filepath.EvalSymlinks(repo)
	require.NoError(t, err)
	got, err := filepath.EvalSymlinks(top)
	require.NoError(t, err)
	require.Equal(t, want, got)

	t.Chdir(root)
	if _, ok := checkoutTop(); ok {
		// A .git above the temporary directory (a home directory kept
		// in git) makes the case without one untestable here.
		if _, err := exec.Command("git", "-C", root, "rev-parse", "--show-toplevel").Output(); err == nil {
			t.Skip("the temporary directory is inside a git checkout")
		}
		t.Fatalf("checkoutTop found a checkout above %s, git none", root)
	}
}

// TestPrefetchedProvenanceIsTheOneWorkedOutInLine: the provenance started
// in the background before a run (PrefetchProvenance) is what the run's
// meta.json gets, the same as worked out when asked.
func TestPrefetchedProvenanceIsTheOneWorkedOutInLine(t *testing.T) {
	PrefetchProvenance()
	PrefetchProvenance() // a second start waits for the first: one answer
	got := BuildProvenance()
	want := findProvenance()
	require.Equal(t, want.Commit, got.Commit)
	require.Equal(t, want.CommitTime, got.CommitTime)
	require.Equal(t, want.Source, got.Source)
	require.Equal(t, want.Module, got.Module)
	require.Equal(t, want.Dirty, got.Dirty) // the flags they point to
}

// TestConfigHashChangesWithAnyResolvedValue: the same file with another
// --set, or another seed, hashes differently; the same resolved
// configuration reached two ways hashes the same.
func TestConfigHashChangesWithAnyResolvedValue(t *testing.T) {
	load := func(sets ...string) string {
		f, err := workloads.Load("../workloads/pcie-dma.yaml", workloads.Options{Sets: sets})
		require.NoError(t, err)
		return ConfigHash(f)
	}
	base := load()
	require.Len(t, base, 64)
	require.NotEqual(t, base, load("adapter.pcie.lanes=16"))
	require.NotEqual(t, base, load("run.seed=2"))
	require.Equal(t, base, load("adapter.pcie.lanes=8"), "lanes 8 is the preset's value: same configuration")
}
