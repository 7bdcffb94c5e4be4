package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
)

// An armed CQ's interrupt that finds the MSI-X queue full goes as soon as
// the queue has room, not at the CQ's next CQE, which may never come: with
// room for one MSI-X, two armed CQs whose one CQE each arrives at once
// both notify.
func TestInterruptThatFindsTheMSIXQueueFullIsRaisedWhenItHasRoom(t *testing.T) {
	ls := pcie.DefaultSpec()
	ls.MSIXQueueMax = 1
	h := newHarnessOn(t, DefaultSpec(), ls)
	st, cq2 := h.a.CreateCQ(64)
	require.Equal(t, StatusSuccess, st)
	qp1 := h.qp(8)
	st, qp2 := h.a.CreateQP(h.pd, cq2, 2000, 8, 0)
	require.Equal(t, StatusSuccess, st)
	qp2.Connect()
	a, b := h.frmr(16, false), h.frmr(16, false)
	calls := [2]int{}
	require.Equal(t, StatusSuccess, h.a.ArmCQ(h.cq, func() { calls[0]++ }))
	require.Equal(t, StatusSuccess, h.a.ArmCQ(cq2, func() { calls[1]++ }))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp1, 1, a, pages(1), 0, pg, 0, 0))
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp2, 2, b, pages(1), 0, pg, 0, 0))
	h.run()
	require.Equal(t, [2]int{1, 1}, calls, "each armed CQ notified once")
	require.Equal(t, uint64(2), h.a.Stats.Interrupts)
}
