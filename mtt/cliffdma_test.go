package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

var _ DMA = (*pcie.DMA)(nil)

// cliffDMAName says which bus model the reach-cliff test runs on.
const cliffDMAName = "pcie.DefaultSpec(): gen3 x8 link to an E5-class host, 64 B read ~546 ns (docs/sources.md §1.1)"

// newCliffDMA returns the bus model for the reach-cliff test: the real PCIe
// link and DMA engine, so a miss costs one dependent PCIe read.
func newCliffDMA(t *testing.T, env *sim.Env) DMA {
	link, err := pcie.New("NIC.PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(DefaultSpec().ClockPeriodPS)})
	require.NoError(t, err)
	return link.DMA()
}
