package mtt_test

import (
	"nicsim/mtt"
	"nicsim/pcie"
)

// The PCIe DMA engine is what the tables and caches read and write ICM with.
var _ mtt.DMA = (*pcie.DMA)(nil)
