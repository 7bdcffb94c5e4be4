package traffic

import (
	"math/rand/v2"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// dma_read and dma_write: one operation is one request of the NIC's DMA
// engine (pcie.DMA) at a drawn offset of the window.

type dmaSource struct {
	dma   *pcie.DMA
	write bool
	p     *workloads.DMAParams
	rng   *rand.Rand
}

func (s *dmaSource) Start(now sim.Tick, op *Op, done Done) error {
	if !s.dma.CanAccept() {
		return ErrBusy
	}
	size := s.p.SizeBytes.Sample(s.rng)
	off := drawOffset(s.p.OffsetBytes, s.rng, s.p.WindowBytes, size, s.p.AlignBytes)
	op.Bytes = size
	if s.write {
		return s.dma.Write(s.p.BaseAddr+off, size, done, op.Index)
	}
	return s.dma.Read(s.p.BaseAddr+off, size, done, op.Index)
}

// drawOffset draws where an operation of size bytes starts in a window:
// from dist, or uniformly over the window without one; rounded down to
// align and moved back so the operation ends inside the window.
func drawOffset(dist *workloads.Dist, rng *rand.Rand, window, size, align uint64) uint64 {
	var off uint64
	if dist != nil {
		off = dist.Sample(rng)
	} else {
		off = rng.Uint64N(window)
	}
	off = min(off, window-size)
	return off &^ (align - 1)
}

func newDMASource(write bool) NewSource {
	return func(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
		return &dmaSource{dma: m.Link.DMA(), write: write, p: g.Params.(*workloads.DMAParams), rng: rng}, nil
	}
}

// Scope: the PCIe link and the DMA engine.
func (s *dmaSource) Scope() Scope { return ScopeDMA }

func init() {
	RegisterSource("dma_read", newDMASource(false))
	RegisterSource("dma_write", newDMASource(true))
}
