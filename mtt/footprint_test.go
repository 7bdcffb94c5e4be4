package mtt

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TableBytes bounds what New allocates, and is not far above it: built with
// large tables (a quarter of the largest the workload loader allows),
// every key-table entry allocated and every MTT entry written (both keep
// their entries in chunks allocated on first use), the heap grows by at most the estimate and by more than
// half of it.
func TestTableBytesCoversWhatNewAllocates(t *testing.T) {
	s := DefaultSpec()
	s.KeyTableEntriesMax, s.MTTEntriesMax = 1<<18, 1<<22
	s.MTTCache.EntriesMax, s.MPTCache.EntriesMax = 1<<18, 1<<18
	require.NoError(t, s.Validate())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	env := sim.NewEnv(1)
	tr, err := New("TPT", s, &fakeDMA{eng: env.Engine, outstandingMax: 1}, env)
	require.NoError(t, err)
	for range s.KeyTableEntriesMax {
		_, err := tr.keys.Alloc(KindMR, 1)
		require.NoError(t, err)
	}
	pages := make([]uint64, mttChunkEntries)
	for off := uint32(0); off < s.MTTEntriesMax; off += mttChunkEntries {
		require.NoError(t, tr.mtt.Set(off, 12, pages))
	}
	runtime.ReadMemStats(&after)
	grew := after.HeapAlloc - before.HeapAlloc
	est := s.TableBytes()
	t.Logf("estimate %.1f MiB, heap grew %.1f MiB", float64(est)/(1<<20), float64(grew)/(1<<20))
	require.LessOrEqual(t, grew, est)
	require.Greater(t, grew, est/2)
	runtime.KeepAlive(tr)
}
