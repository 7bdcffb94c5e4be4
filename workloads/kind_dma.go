package workloads

import (
	"math/rand/v2"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// dma_read and dma_write: the NIC's DMA engine reading or writing host
// memory over the PCIe link (pcie.DMA). A read completes when its last
// completion byte reaches the NIC; a write when its last MWr has left the
// NIC (posted).

type dmaParams struct {
	SizeBytes   Dist   `yaml:"size_bytes" json:"size_bytes" check:"1..2^30"`
	WindowBytes uint64 `yaml:"window_bytes" json:"window_bytes" check:"1..2^40"`
	OffsetBytes *Dist  `yaml:"offset_bytes" json:"offset_bytes,omitempty" check:"0..2^40"`
	AlignBytes  uint64 `yaml:"align_bytes" json:"align_bytes" check:"pow2 1..2^30"`
	BaseAddr    uint64 `yaml:"base_addr" json:"base_addr" check:"0..2^56"`
}

func newDMAParams() any {
	return &dmaParams{SizeBytes: Fixed(64), WindowBytes: 1 << 20, AlignBytes: 64, BaseAddr: 0x40_0000_0000}
}

func checkDMA(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*dmaParams)
	if s := p.SizeBytes.Largest(); s > p.WindowBytes {
		c.Errorf("size_bytes", "sizes up to %d bytes do not fit window_bytes = %d", s, p.WindowBytes)
	}
}

type dmaSource struct {
	dma   *pcie.DMA
	write bool
	p     *dmaParams
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
func drawOffset(dist *Dist, rng *rand.Rand, window, size, align uint64) uint64 {
	var off uint64
	if dist != nil {
		off = dist.Sample(rng)
	} else {
		off = rng.Uint64N(window)
	}
	off = min(off, window-size)
	return off &^ (align - 1)
}

func init() {
	for _, write := range []bool{false, true} {
		name, sum := "dma_read", "NIC DMA read of host memory over PCIe: request to last completion byte at the NIC"
		if write {
			name, sum = "dma_write", "NIC DMA write to host memory over PCIe: request to last MWr sent (posted)"
		}
		RegisterKind(Kind{Name: name, Summary: sum, Params: newDMAParams, Check: checkDMA,
			New: func(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
				return &dmaSource{dma: m.Link.DMA(), write: write, p: g.Params.(*dmaParams), rng: rng}, nil
			}})
	}
}
