package mtt

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestRunsAreDeterministic: the same seed gives byte-identical statistics,
// with the random replacement policy and over the real PCIe model.
func TestRunsAreDeterministic(t *testing.T) {
	seed := testSeed(t, 11)
	dump := func() []byte {
		env := sim.NewEnv(seed)
		spec := DefaultSpec()
		spec.MTTCache.EntriesMax = 512
		spec.MTTCache.Policy = PolicyRandom
		spec.MPTCache.Policy = PolicyRandom
		tr, err := New("NIC.TPT", spec, newCliffDMA(t, env), env)
		require.NoError(t, err)
		tok := registerMR(t, tr, 1, 0, 2048, PageShift4K, RightRemoteRead)
		g := &closedLoop{tr: tr, rng: env.Stream("Generator"), tok: tok, slots: 2048 * 4096 / 64,
			reqs: make([]Request, 16), warm: 1000, total: 3000}
		for i := range g.reqs {
			g.issue(uint64(i))
		}
		env.Engine.Run()
		reg := sim.NewRegistry()
		require.NoError(t, tr.Stats.Register(reg, "NIC"))
		var b bytes.Buffer
		require.NoError(t, reg.WriteJSON(&b))
		return b.Bytes()
	}
	a, b := dump(), dump()
	require.Equal(t, string(a), string(b))
	require.Contains(t, string(a), `"name": "NIC.MTTCache.Evictions"`)
}
