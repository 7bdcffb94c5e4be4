package workloads

// dma_read and dma_write: the NIC's DMA engine reading or writing host
// memory over the PCIe link (pcie.DMA). A read completes when its last
// completion byte reaches the NIC; a write when its last MWr has left the
// NIC (posted).

// DMAParams are the keys of dma_read and dma_write.
type DMAParams struct {
	SizeBytes   Dist   `yaml:"size_bytes" json:"size_bytes" check:"1..2^30"`
	WindowBytes uint64 `yaml:"window_bytes" json:"window_bytes" check:"1..2^40"`
	OffsetBytes *Dist  `yaml:"offset_bytes" json:"offset_bytes,omitempty" check:"0..2^40"`
	AlignBytes  uint64 `yaml:"align_bytes" json:"align_bytes" check:"pow2 1..2^30"`
	BaseAddr    uint64 `yaml:"base_addr" json:"base_addr" check:"0..2^56"`
}

func newDMAParams() any {
	return &DMAParams{SizeBytes: Fixed(64), WindowBytes: 1 << 20, AlignBytes: 64, BaseAddr: 0x40_0000_0000}
}

func checkDMA(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*DMAParams)
	if s := p.SizeBytes.Largest(); s > p.WindowBytes {
		c.Errorf("size_bytes", "sizes up to %d bytes do not fit window_bytes = %d", s, p.WindowBytes)
	}
}

func init() {
	RegisterKind(Kind{Name: "dma_read", Summary: "NIC DMA read of host memory over PCIe: request to last completion byte at the NIC",
		Params: newDMAParams, Check: checkDMA})
	RegisterKind(Kind{Name: "dma_write", Summary: "NIC DMA write to host memory over PCIe: request to last MWr sent (posted)",
		Params: newDMAParams, Check: checkDMA})
}
