package mtt

import "fmt"

// MTT is the translation table in ICM: one 8-byte entry per page holding the
// page's host address, in contiguous ranges handed out by a RangeAllocator.
// The image here is the functional truth; Translator charges the time of
// reading and writing it over PCIe.
//
// The image is kept in chunks of mttChunkEntries entries, each allocated
// when an entry of it is first written: a table sized for millions of
// entries of which a run writes thousands holds a few chunks, instead of
// memory that set-up would have to clear (8 MiB for the default million
// entries). An entry never written reads as 0, as in a cleared table.
type MTT struct {
	alloc  *RangeAllocator
	n      uint32
	chunks []*[mttChunkEntries]uint64
}

// mttChunkEntries is the entries of one chunk of the image (32 KiB).
const (
	mttChunkShift   = 12
	mttChunkEntries = 1 << mttChunkShift
)

// NewMTT returns an empty table of n entries with the given allocation policy.
func NewMTT(n uint32, allocPolicy string) (*MTT, error) {
	a, err := NewRangeAllocator(n, allocPolicy)
	if err != nil {
		return nil, err
	}
	return &MTT{alloc: a, n: n, chunks: make([]*[mttChunkEntries]uint64, (uint64(n)+mttChunkEntries-1)/mttChunkEntries)}, nil
}

// Alloc reserves count contiguous entries (ErrNoSpace when no free range is
// long enough: STATUS_INSUFFICIENT_RESOURCES).
func (m *MTT) Alloc(count uint32) (offset uint32, err error) { return m.alloc.Alloc(count) }

// Free releases [offset, offset+count).
func (m *MTT) Free(offset, count uint32) error { return m.alloc.Free(offset, count) }

// Allocator exposes the allocator's figures (free entries, fragmentation).
func (m *MTT) Allocator() *RangeAllocator { return m.alloc }

// Set stores page addresses into entries offset, offset+1, ... (the
// functional effect of a registration; WriteMTT charges its DMA writes).
// Addresses must be aligned to pageShift (docs/ndk.md rule 36).
func (m *MTT) Set(offset uint32, pageShift uint8, pages []uint64) error {
	if uint64(offset)+uint64(len(pages)) > uint64(m.n) {
		return fmt.Errorf("mtt: set of [%d, +%d) beyond %d entries", offset, len(pages), m.n)
	}
	mask := uint64(1)<<pageShift - 1
	for i, p := range pages {
		if p&mask != 0 {
			return fmt.Errorf("mtt: page %d address %#x not aligned to %d bytes (rule 36)", i, p, mask+1)
		}
	}
	for len(pages) > 0 {
		c := m.chunks[offset>>mttChunkShift]
		if c == nil {
			c = new([mttChunkEntries]uint64)
			m.chunks[offset>>mttChunkShift] = c
		}
		n := copy(c[offset&(mttChunkEntries-1):], pages)
		offset, pages = offset+uint32(n), pages[n:]
	}
	return nil
}

// Page returns the address stored in entry i (i < Len).
func (m *MTT) Page(i uint64) uint64 {
	if c := m.chunks[i>>mttChunkShift]; c != nil {
		return c[i&(mttChunkEntries-1)]
	}
	return 0
}

// Len is the number of entries.
func (m *MTT) Len() uint32 { return m.n }

// icmLayout maps table entries to host addresses and cache lines.
type icmLayout struct {
	mptBase, mttBase uint64
	mptEntryBytes    uint64
	mptLineBytes     uint64
	mttLineBytes     uint64
}

func (l *icmLayout) mptAddr(index uint32) uint64 { return l.mptBase + uint64(index)*l.mptEntryBytes }
func (l *icmLayout) mptLine(index uint32) uint64 {
	return uint64(index) * l.mptEntryBytes / l.mptLineBytes
}
func (l *icmLayout) mttAddr(entry uint64) uint64 { return l.mttBase + entry*MTTEntryBytes }
func (l *icmLayout) mttLine(entry uint64) uint64 { return entry * MTTEntryBytes / l.mttLineBytes }
