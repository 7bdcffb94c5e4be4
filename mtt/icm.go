package mtt

import "fmt"

// MTT is the translation table in ICM: one 8-byte entry per page holding the
// page's host address, in contiguous ranges handed out by a RangeAllocator.
// The image here is the functional truth; Translator charges the time of
// reading and writing it over PCIe.
type MTT struct {
	alloc *RangeAllocator
	image []uint64
}

// NewMTT returns an empty table of n entries with the given allocation policy.
func NewMTT(n uint32, allocPolicy string) (*MTT, error) {
	a, err := NewRangeAllocator(n, allocPolicy)
	if err != nil {
		return nil, err
	}
	return &MTT{alloc: a, image: make([]uint64, n)}, nil
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
	if uint64(offset)+uint64(len(pages)) > uint64(len(m.image)) {
		return fmt.Errorf("mtt: set of [%d, +%d) beyond %d entries", offset, len(pages), len(m.image))
	}
	mask := uint64(1)<<pageShift - 1
	for i, p := range pages {
		if p&mask != 0 {
			return fmt.Errorf("mtt: page %d address %#x not aligned to %d bytes (rule 36)", i, p, mask+1)
		}
	}
	copy(m.image[offset:], pages)
	return nil
}

// Page returns the address stored in entry i.
func (m *MTT) Page(i uint32) uint64 { return m.image[i] }

// Len is the number of entries.
func (m *MTT) Len() uint32 { return uint32(len(m.image)) }

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
