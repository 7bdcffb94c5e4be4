package mtt

import (
	"errors"
	"fmt"
	"sort"
)

// ErrNoSpace is returned when a table has no room: the MTT region has no
// contiguous free range of the size asked for (even if enough entries are
// free in total), or the key table has no free entry. The NIC layer maps it
// to STATUS_INSUFFICIENT_RESOURCES (docs/ndk.md rule 17, 46; §1.5).
var ErrNoSpace = errors.New("mtt: no space")

// span is a free range [off, off+n).
type span struct{ off, n uint32 }

// RangeAllocator hands out contiguous ranges of [0, size) entries, first-fit
// or best-fit, and coalesces neighbouring free ranges on Free. Free ranges
// are kept sorted by offset; the number of free ranges is at most
// allocated ranges + 1, so every operation is bounded by the live allocations.
type RangeAllocator struct {
	size    uint32
	bestFit bool
	free    []span
	used    uint32
}

// NewRangeAllocator returns an allocator over size entries with the given
// policy ("first-fit" or "best-fit").
func NewRangeAllocator(size uint32, policy string) (*RangeAllocator, error) {
	if size == 0 {
		return nil, fmt.Errorf("mtt: range allocator size must be >= 1")
	}
	if policy != AllocFirstFit && policy != AllocBestFit {
		return nil, fmt.Errorf("mtt: allocation policy %q, want %q or %q", policy, AllocFirstFit, AllocBestFit)
	}
	return &RangeAllocator{size: size, bestFit: policy == AllocBestFit, free: []span{{0, size}}}, nil
}

// Alloc returns the offset of n contiguous free entries, or ErrNoSpace.
func (a *RangeAllocator) Alloc(n uint32) (uint32, error) {
	if n == 0 {
		return 0, fmt.Errorf("mtt: allocation of 0 entries")
	}
	pick := -1
	for i, s := range a.free {
		if s.n < n {
			continue
		}
		if !a.bestFit {
			pick = i
			break
		}
		if pick < 0 || s.n < a.free[pick].n {
			pick = i
		}
	}
	if pick < 0 {
		return 0, fmt.Errorf("%w: MTT: no contiguous range of %d entries (%d free in %d ranges, largest %d)",
			ErrNoSpace, n, a.size-a.used, len(a.free), a.LargestFree())
	}
	s := &a.free[pick]
	off := s.off
	s.off += n
	s.n -= n
	if s.n == 0 {
		a.free = append(a.free[:pick], a.free[pick+1:]...)
	}
	a.used += n
	return off, nil
}

// Free returns [off, off+n) to the allocator, merging it with free
// neighbours. Freeing a range that is not wholly allocated is an error.
func (a *RangeAllocator) Free(off, n uint32) error {
	if n == 0 || uint64(off)+uint64(n) > uint64(a.size) {
		return fmt.Errorf("mtt: free of [%d, +%d) outside [0, %d)", off, n, a.size)
	}
	i := sort.Search(len(a.free), func(i int) bool { return a.free[i].off >= off })
	if i > 0 && a.free[i-1].off+a.free[i-1].n > off || i < len(a.free) && off+n > a.free[i].off {
		return fmt.Errorf("mtt: free of [%d, +%d): range is (partly) free already", off, n)
	}
	mergePrev := i > 0 && a.free[i-1].off+a.free[i-1].n == off
	mergeNext := i < len(a.free) && off+n == a.free[i].off
	switch {
	case mergePrev && mergeNext:
		a.free[i-1].n += n + a.free[i].n
		a.free = append(a.free[:i], a.free[i+1:]...)
	case mergePrev:
		a.free[i-1].n += n
	case mergeNext:
		a.free[i].off = off
		a.free[i].n += n
	default:
		a.free = append(a.free, span{})
		copy(a.free[i+1:], a.free[i:])
		a.free[i] = span{off, n}
	}
	a.used -= n
	return nil
}

// Size is the number of entries managed.
func (a *RangeAllocator) Size() uint32 { return a.size }

// FreeEntries is the total number of free entries.
func (a *RangeAllocator) FreeEntries() uint32 { return a.size - a.used }

// FreeRanges is the number of disjoint free ranges (fragmentation).
func (a *RangeAllocator) FreeRanges() int { return len(a.free) }

// LargestFree is the size of the largest free range.
func (a *RangeAllocator) LargestFree() uint32 {
	var m uint32
	for _, s := range a.free {
		m = max(m, s.n)
	}
	return m
}
