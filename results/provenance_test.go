package results

import (
	"os/exec"
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
	p := findProvenance()
	require.Contains(t, []string{"checkout", "build info"}, p.Source)
	require.Equal(t, strings.TrimSpace(string(head)), p.Commit)
	require.NotNil(t, p.Dirty)
	require.NotEmpty(t, p.Module)
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
