package nic

import "fmt"

// HostMemory is the byte contents of one host's memory, for the remote data
// path: a sparse map of 4 KiB pages allocated on first write and bounded by
// PagesMax (a write that needs one more page panics: a test or workload
// that touches that much memory is wrong). Unwritten bytes read as zero.
// Addresses are host physical (adapter logical) addresses; MR virtual
// addresses reach it through the MTT. Timing is not here: the NIC charges
// DMA reads and writes on its PCIe link.
type HostMemory struct {
	pages    map[uint64]*[PageSizeBytes]byte
	PagesMax int
}

// NewHostMemory returns an empty memory of at most pagesMax pages.
func NewHostMemory(pagesMax int) *HostMemory {
	return &HostMemory{pages: make(map[uint64]*[PageSizeBytes]byte), PagesMax: pagesMax}
}

// Pages is the number of pages allocated.
func (m *HostMemory) Pages() int { return len(m.pages) }

func (m *HostMemory) page(addr uint64, alloc bool) *[PageSizeBytes]byte {
	pn := addr / PageSizeBytes
	p := m.pages[pn]
	if p == nil && alloc {
		if len(m.pages) >= m.PagesMax {
			panic(fmt.Sprintf("nic: host memory: more than %d pages written", m.PagesMax))
		}
		p = new([PageSizeBytes]byte)
		m.pages[pn] = p
	}
	return p
}

// Write stores b at addr.
func (m *HostMemory) Write(addr uint64, b []byte) {
	for len(b) > 0 {
		off := addr % PageSizeBytes
		n := copy(m.page(addr, true)[off:], b)
		b = b[n:]
		addr += uint64(n)
	}
}

// Read fills b from addr.
func (m *HostMemory) Read(addr uint64, b []byte) {
	for len(b) > 0 {
		off := addr % PageSizeBytes
		n := min(uint64(len(b)), PageSizeBytes-off)
		if p := m.page(addr, false); p != nil {
			copy(b[:n], p[off:])
		} else {
			clear(b[:n])
		}
		b = b[n:]
		addr += n
	}
}

// readPages reads n bytes starting off bytes into pages[0] of a page list
// (the result of a translation) into b[:n].
func (m *HostMemory) readPages(pages []uint64, off uint64, b []byte) {
	for i := 0; len(b) > 0; i++ {
		n := min(uint64(len(b)), PageSizeBytes-off)
		m.Read(pages[i]+off, b[:n])
		b, off = b[n:], 0
	}
}

// writePages writes b starting off bytes into pages[0] of a page list.
func (m *HostMemory) writePages(pages []uint64, off uint64, b []byte) {
	for i := 0; len(b) > 0; i++ {
		n := min(uint64(len(b)), PageSizeBytes-off)
		m.Write(pages[i]+off, b[:n])
		b, off = b[n:], 0
	}
}
