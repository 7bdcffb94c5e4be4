package nic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChainPagesListsEachPieceInOrderUpToN: the page list of an MDL chain
// is each piece's pages in order, a piece with a PFN array giving its
// entries and one without its virtual pages, cut at n addresses.
func TestChainPagesListsEachPieceInOrderUpToN(t *testing.T) {
	const pg = PageSizeBytes
	chain := []MDL{
		{VirtualAddress: 0x10000 + 0x80, ByteCount: 2*pg - 0x80}, // pages 0x10000, 0x11000
		{VirtualAddress: 0x12000, ByteCount: 2 * pg, PhysicalPages: []uint64{0x7000, 0x3000}},
		{VirtualAddress: 0x14000, ByteCount: 0x10}, // page 0x14000
	}
	all := []uint64{0x10000, 0x11000, 0x7000, 0x3000, 0x14000}
	for n := range uint64(len(all)) + 1 {
		require.Equal(t, append([]uint64(nil), all[:n]...), chainPages(chain, n, nil), "n=%d", n)
	}
	require.Equal(t, all, chainPages(chain, 99, nil), "n past the chain's pages: all of them")

	buf := make([]uint64, 0, 1)
	got := chainPages(chain, 3, buf)
	require.Equal(t, all[:3], got, "a reused buffer too small grows")
}
