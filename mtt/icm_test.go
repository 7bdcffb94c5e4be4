package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMTTImageHoldsOnlyWrittenChunks: a new table holds no chunk of its
// image and reads 0 everywhere; a write across a chunk boundary reads back
// entry by entry and allocates just the two chunks it touches; a write
// beyond the table is refused and changes nothing.
func TestMTTImageHoldsOnlyWrittenChunks(t *testing.T) {
	m, err := NewMTT(3*mttChunkEntries+5, AllocFirstFit)
	require.NoError(t, err)
	require.Len(t, m.chunks, 4)
	require.Equal(t, uint64(0), m.Page(0))
	require.Equal(t, uint64(0), m.Page(uint64(m.Len()-1)))
	pages := []uint64{0x1000, 0x2000, 0x3000, 0x4000}
	require.NoError(t, m.Set(mttChunkEntries-2, 12, pages))
	for i, p := range pages {
		require.Equal(t, p, m.Page(uint64(mttChunkEntries-2+i)))
	}
	held := 0
	for _, c := range m.chunks {
		if c != nil {
			held++
		}
	}
	require.Equal(t, 2, held)
	require.Error(t, m.Set(m.Len()-1, 12, pages))
	require.Nil(t, m.chunks[3])
}
