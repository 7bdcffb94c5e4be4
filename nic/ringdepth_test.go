package nic

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRingsOfAnyDepthCompleteInPostOrderAcrossWraps posts FastRegister and
// Invalidate pairs on a QP whose SQ and CQ have depth slots, a power of
// two or not, and takes the results: every request completes, in post
// order, with its own context, through many wraps of both rings (5.7: a
// slot is reused only once its CQE is taken).
func TestRingsOfAnyDepthCompleteInPostOrderAcrossWraps(t *testing.T) {
	for _, depth := range []uint32{2, 3, 4, 6, 8} {
		t.Run(fmt.Sprintf("depth=%d", depth), func(t *testing.T) {
			h := newHarness(t, DefaultSpec())
			st, cq := h.a.CreateCQ(depth)
			require.Equal(t, StatusSuccess, st)
			st, qp := h.a.CreateQP(h.pd, cq, 7, depth, 0)
			require.Equal(t, StatusSuccess, st)
			qp.Connect()
			mr := h.frmr(1, false)
			var want, got []uint64
			for ctx := uint64(0); ctx < uint64(10*depth); ctx += 2 {
				require.Equal(t, StatusSuccess, h.a.FastRegister(qp, ctx, mr, pages(1), 0, PageSizeBytes, 0, 0))
				require.Equal(t, StatusSuccess, h.a.Invalidate(qp, ctx+1, mr, 0))
				want = append(want, ctx, ctx+1)
				h.run()
				for _, r := range h.a.GetCQResults(cq, int(depth)) {
					require.Equal(t, StatusSuccess, r.Status, "request %d", r.RequestContext)
					got = append(got, r.RequestContext)
				}
			}
			require.Equal(t, want, got)
			require.Zero(t, qp.Outstanding())
		})
	}
}
