package mtt

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegionFitsExactlyWhenCheckFindsNothing: SetRegion takes a region on
// the common path's test (fits) and formats an error only when it fails,
// so fits must accept exactly the regions check accepts — page shift,
// first byte offset, empty or wrapping range, base below the translation
// VA, and the MTT range's size, each near its boundary.
func TestRegionFitsExactlyWhenCheckFindsNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t, 17), 2))
	pick := func(vals ...uint64) uint64 { return vals[rng.IntN(len(vals))] }
	near := func(v uint64) uint64 { return v + uint64(rng.IntN(5)) - 2 }
	accepted := 0
	for range 200000 {
		shift := uint8(pick(PageShift4K, PageShift2M, 0, 13, 63))
		page := uint64(1) << (shift & 63)
		xlate := pick(0, 1<<30, ^uint64(0)-page)
		base := near(xlate + pick(0, page, 3*page))
		r := Region{
			PageShift: shift,
			FBO:       near(pick(0, page-1, page)),
			BaseVA:    base,
			XlateVA:   xlate,
			Length:    near(pick(0, 1, page, 8*page, ^uint64(0)-base+1)),
			MTTCount:  uint32(near(pick(0, 1, 2, 9, 16))),
		}
		ok := r.check() == nil
		require.Equal(t, ok, r.fits(), "region %+v", r)
		if ok {
			accepted++
		}
	}
	require.Positive(t, accepted, "the draws never reached a valid region")
}
