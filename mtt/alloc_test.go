package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMTTAllocatorFragmentationExhausts: after an alloc/free pattern that
// leaves half the region free in 1-range holes, a request for more than the
// largest hole fails with ErrNoSpace (STATUS_INSUFFICIENT_RESOURCES) although
// enough entries are free in total.
func TestMTTAllocatorFragmentationExhausts(t *testing.T) {
	for _, pol := range []string{AllocFirstFit, AllocBestFit} {
		t.Run(pol, func(t *testing.T) {
			m, err := NewMTT(1024, pol)
			require.NoError(t, err)
			offs := make([]uint32, 64)
			for i := range offs {
				offs[i], err = m.Alloc(16)
				require.NoError(t, err)
			}
			_, err = m.Alloc(1)
			require.ErrorIs(t, err, ErrNoSpace, "region full")
			for i := 0; i < len(offs); i += 2 {
				require.NoError(t, m.Free(offs[i], 16))
			}
			a := m.Allocator()
			require.Equal(t, uint32(512), a.FreeEntries())
			require.Equal(t, 32, a.FreeRanges())
			require.Equal(t, uint32(16), a.LargestFree())
			_, err = m.Alloc(17)
			require.ErrorIs(t, err, ErrNoSpace, "512 entries free but no 17 contiguous")
			require.Contains(t, err.Error(), "largest 16")
			// Freeing the neighbours coalesces everything back into one range.
			for i := 1; i < len(offs); i += 2 {
				require.NoError(t, m.Free(offs[i], 16))
			}
			require.Equal(t, 1, a.FreeRanges())
			off, err := m.Alloc(1024)
			require.NoError(t, err)
			require.Equal(t, uint32(0), off)
		})
	}
}

func TestAllocatorPolicies(t *testing.T) {
	// Holes of 8 at 0 and of 4 at 12: first-fit puts 4 at 0, best-fit at 12.
	for _, c := range []struct {
		pol  string
		want uint32
	}{{AllocFirstFit, 0}, {AllocBestFit, 12}} {
		a, err := NewRangeAllocator(20, c.pol)
		require.NoError(t, err)
		_, _ = a.Alloc(8)
		_, _ = a.Alloc(4)
		_, _ = a.Alloc(4)
		_, _ = a.Alloc(4)
		require.NoError(t, a.Free(0, 8))
		require.NoError(t, a.Free(12, 4))
		got, err := a.Alloc(4)
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.pol)
	}
}

func TestAllocatorRejectsBadFree(t *testing.T) {
	a, err := NewRangeAllocator(100, AllocFirstFit)
	require.NoError(t, err)
	off, err := a.Alloc(10)
	require.NoError(t, err)
	require.NoError(t, a.Free(off, 10))
	require.Error(t, a.Free(off, 10), "double free")
	require.Error(t, a.Free(95, 10), "beyond the region")
	_, err = a.Alloc(0)
	require.Error(t, err)
}
