package nic

import "slices"

// MDL is one piece of an MDL chain as NdkRegisterMr sees it (docs/ndk.md 2.D,
// seed REGISTER_MR): the virtual address of its first byte
// (MmGetMdlVirtualAddress) and its byte count (MmGetMdlByteCount). The
// pages are locked by the consumer; PhysicalPages, when given, are the host
// physical (adapter logical) address of each page the piece touches, in
// order (the MDL's PFN array). When nil the model maps virtual to physical
// one to one (physical page = virtual page), which is what the tests' host
// memory uses.
type MDL struct {
	VirtualAddress uint64
	ByteCount      uint64
	PhysicalPages  []uint64
}

// pages returns the number of PAGE_SIZE pages the piece touches.
func (m MDL) pages() uint64 {
	if m.ByteCount == 0 {
		return 0
	}
	first := m.VirtualAddress &^ (PageSizeBytes - 1)
	last := (m.VirtualAddress + m.ByteCount - 1) &^ (PageSizeBytes - 1)
	return (last-first)/PageSizeBytes + 1
}

// checkChain applies rules 19 and 20. Every piece must be well formed (a
// byte count, no wrap, one page address per page it touches, each
// PAGE_SIZE-aligned), and length must not exceed the chain's bytes
// (rule 20). The part of the chain that [VA, VA+length) covers must be
// virtually contiguous (rule 19): each piece of it after the first starts
// where the previous one ends, on a page boundary, as MDLs describe whole
// pages in between. Pieces wholly beyond VA+length are not part of the
// region, so where they lie does not matter. It returns the pages
// [VA, VA+length) touches.
func checkChain(chain []MDL, length uint64) (pages uint64, ok bool) {
	if len(chain) == 0 || length == 0 {
		return 0, false
	}
	var total uint64
	for i, m := range chain {
		if m.ByteCount == 0 || m.VirtualAddress+m.ByteCount < m.VirtualAddress {
			return 0, false
		}
		if m.PhysicalPages != nil && uint64(len(m.PhysicalPages)) != m.pages() {
			return 0, false
		}
		for _, p := range m.PhysicalPages {
			if p%PageSizeBytes != 0 {
				return 0, false
			}
		}
		if i > 0 && total < length { // the piece holds bytes of the region
			prev := chain[i-1]
			end := prev.VirtualAddress + prev.ByteCount
			if m.VirtualAddress != end || end%PageSizeBytes != 0 {
				return 0, false // rule 19: not virtually contiguous
			}
		}
		total += m.ByteCount
	}
	if length > total {
		return 0, false // rule 20
	}
	va := chain[0].VirtualAddress
	if va+length < va {
		return 0, false
	}
	first := va &^ (PageSizeBytes - 1)
	last := (va + length - 1) &^ (PageSizeBytes - 1)
	return (last-first)/PageSizeBytes + 1, true
}

// chainPages appends the physical address of each page of the chain to
// out, in order, until out holds n addresses.
//
// Each piece's pages are counted once and its addresses written by a loop
// of its own. A loop that copied the piece to the stack and counted its
// pages at every page ran up to 7x as long in one build as in another with
// the same code (65,536 pages a registration; docs/kernel.md, "Slices of a
// run").
func chainPages(chain []MDL, n uint64, out []uint64) []uint64 {
	if uint64(len(out)) < n {
		out = slices.Grow(out, int(n)-len(out))
	}
	for k := range chain {
		m := &chain[k]
		take := min(m.pages(), n-min(n, uint64(len(out))))
		if m.PhysicalPages != nil {
			out = append(out, m.PhysicalPages[:take]...)
			continue
		}
		base := m.VirtualAddress &^ (PageSizeBytes - 1)
		for i := range take {
			out = append(out, base+i*PageSizeBytes)
		}
	}
	return out
}
