package nic

import "fmt"

// HostMemory is the byte contents of one host's memory, for the remote data
// path: a sparse map of 4 KiB pages allocated on first write and bounded by
// PagesMax. A write that would need more pages than PagesMax stores
// nothing and records the error (Err), which the run reports: the bound is
// checked before anything is allocated, and nothing panics. Unwritten bytes
// read as zero. Addresses are host physical (adapter logical) addresses; MR
// virtual addresses reach it through the MTT. Timing is not here: the NIC
// charges DMA reads and writes on its PCIe link.
type HostMemory struct {
	pages    map[uint64]*[PageSizeBytes]byte
	PagesMax int
	err      error
}

// NewHostMemory returns an empty memory of at most pagesMax pages.
func NewHostMemory(pagesMax int) *HostMemory {
	return &HostMemory{pages: make(map[uint64]*[PageSizeBytes]byte), PagesMax: pagesMax}
}

// Pages is the number of pages allocated.
func (m *HostMemory) Pages() int { return len(m.pages) }

// Err is the first write refused for want of pages, or nil.
func (m *HostMemory) Err() error { return m.err }

// NewPages is the number of pages a write of n bytes at addr would
// allocate (pages not written before). A range of more pages than PagesMax
// (or one that wraps past 2^64) cannot fit whatever is written already: it
// counts all its pages without looking, so the answer costs at most
// PagesMax lookups.
func (m *HostMemory) NewPages(addr, n uint64) int {
	if n == 0 {
		return 0
	}
	if addr+n-1 < addr {
		return int(min(n/PageSizeBytes+1, 1<<62))
	}
	first, last := addr/PageSizeBytes, (addr+n-1)/PageSizeBytes
	if last-first >= uint64(m.PagesMax) {
		return int(last - first + 1)
	}
	k := 0
	for pn := first; pn <= last; pn++ {
		if m.pages[pn] == nil {
			k++
		}
	}
	return k
}

// Fits reports whether a write of n bytes at addr fits PagesMax.
func (m *HostMemory) Fits(addr, n uint64) bool {
	return len(m.pages)+m.NewPages(addr, n) <= m.PagesMax
}

// refuse records a write that does not fit.
func (m *HostMemory) refuse(addr uint64, n int, need int) {
	if m.err == nil {
		m.err = fmt.Errorf("host memory: writing %d bytes at 0x%X needs %d more pages, past the %d of host_memory_pages_max (%d written)",
			n, addr, need, m.PagesMax, len(m.pages))
	}
}

func (m *HostMemory) page(addr uint64, alloc bool) *[PageSizeBytes]byte {
	pn := addr / PageSizeBytes
	p := m.pages[pn]
	if p == nil && alloc {
		p = new([PageSizeBytes]byte)
		m.pages[pn] = p
	}
	return p
}

// Write stores b at addr; a write that does not fit PagesMax stores nothing
// (Err says so).
func (m *HostMemory) Write(addr uint64, b []byte) {
	if !m.Fits(addr, uint64(len(b))) {
		m.refuse(addr, len(b), m.NewPages(addr, uint64(len(b))))
		return
	}
	m.write(addr, b)
}

func (m *HostMemory) write(addr uint64, b []byte) {
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

// writePages writes b starting off bytes into pages[0] of a page list; a
// write that does not fit PagesMax stores nothing (Err says so).
func (m *HostMemory) writePages(pages []uint64, off uint64, b []byte) {
	need, o, rest := 0, off, uint64(len(b))
	for i := 0; rest > 0; i++ {
		n := min(rest, PageSizeBytes-o)
		need += m.NewPages(pages[i]+o, n)
		rest, o = rest-n, 0
	}
	if len(m.pages)+need > m.PagesMax {
		m.refuse(pages[0]+off, len(b), need)
		return
	}
	for i := 0; len(b) > 0; i++ {
		n := min(uint64(len(b)), PageSizeBytes-off)
		m.write(pages[i]+off, b[:n])
		b, off = b[n:], 0
	}
}
