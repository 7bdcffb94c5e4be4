package mtt_test

import (
	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/pcie"
)

// The PCIe DMA engine is what the tables and caches read and write ICM with.
var _ mtt.DMA = (*pcie.DMA)(nil)
