package traffic

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

// scaleShape is one size of workloads/scale.yaml: QPs, operation slots
// (an MR each) per QP, and the adapter's key-table and MTT sizes.
type scaleShape struct {
	streams, outstanding int
	keys, mtt            int
}

// scaleHeld loads workloads/scale.yaml at shape s, closed loop (its
// arrival line left out, so that every slot has an operation in flight, the
// most a slot holds), sets it up and runs it for 1 µs after 1 µs of
// warm-up, and returns the heap it holds then (after a collection) and the
// loader's estimate of its memory.
func scaleHeld(t *testing.T, s scaleShape) (held, estimate uint64) {
	t.Helper()
	src, err := os.ReadFile("../scale.yaml")
	require.NoError(t, err)
	closed := regexp.MustCompile(`(?m)^\s*arrival:.*\n`).ReplaceAllString(string(src), "")
	require.NotEqual(t, string(src), closed)
	w := load(t, closed, fmt.Sprint("generators.fr-inv.streams=", s.streams), fmt.Sprint("generators.fr-inv.outstanding=", s.outstanding),
		fmt.Sprint("adapter.mtt.key_table_entries_max=", s.keys), fmt.Sprint("adapter.mtt.mtt_entries_max=", s.mtt),
		"run.warmup_us=1", "run.duration_us=1").Points[0]
	return heldAfterRun(t, w), workloads.MemoryTotal(w.MemoryEstimate())
}

// Documented bounds of the memory per object (docs/scaling.md, "Memory per
// object"): a QP's own record and CQ share, an operation slot's MR with its
// key-table entry, its creation records, its two WR queue entries and the
// run's records, and what one more entry of key-table or MTT capacity
// costs while no object uses it (the key table's and the MTT image's
// entries are allocated, in chunks, as they are first used).
const (
	qpBytesMax       = 1024
	slotBytesMax     = 1536
	keyEntryBytesMax = 24
	mttEntryBytesMax = 1
)

// The memory a scale run holds grows by at most the documented bound per
// QP, per MR (operation slot), per key-table entry and per MTT entry of
// capacity, each
// measured as the heap difference between two sizes of
// workloads/scale.yaml that differ in that count alone, at 4,096 QPs; and
// it stays within the loader's estimate.
func TestScaleMemoryPerObjectStaysUnderItsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds five models of up to 131,072 MRs")
	}
	base := scaleShape{streams: 4096, outstanding: 16, keys: 1 << 16, mtt: 1 << 20}
	held, est := scaleHeld(t, base)
	t.Logf("4096 QPs x 16 MRs: held %s, estimate %s", workloads.Bytes(held), workloads.Bytes(est))
	require.LessOrEqual(t, held, est)
	per := func(s scaleShape, n int) float64 {
		h, _ := scaleHeld(t, s)
		return (float64(h) - float64(held)) / float64(n)
	}
	fewerSlots, fewerQPs, moreKeys, moreMTT := base, base, base, base
	fewerSlots.outstanding = 8
	fewerQPs.streams = 2048
	moreKeys.keys = 1 << 17
	moreMTT.mtt = 1 << 21
	slot := -per(fewerSlots, 4096*8)
	qp := -per(fewerQPs, 2048) - 16*slot
	key, mtt := per(moreKeys, 1<<16), per(moreMTT, 1<<20)
	t.Logf("per QP %.0f B, per MR (operation slot) %.0f B, per key-table entry %.1f B, per MTT entry %.1f B", qp, slot, key, mtt)
	require.Less(t, qp, float64(qpBytesMax))
	require.Less(t, slot, float64(slotBytesMax))
	require.Less(t, key, float64(keyEntryBytesMax))
	require.Less(t, mtt, float64(mttEntryBytesMax))
}
