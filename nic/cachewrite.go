package nic

import "github.com/nicsim/nicsim/sim"

// cacheWrite is the on-NIC MPT/MTT cache update after the MPT update. The
// TPT updates or invalidates its cached lines functionally at the write
// call (mtt.Translator.WriteMTT, WriteMPT); this stage charges the time,
// CacheWrite.LatencyCycles.
type cacheWrite struct{}

func newCacheWrite(a *Adapter, e *engine) *stage {
	return a.newStage(e.prefix, "CacheWrite", a.spec.CacheWrite, cacheWrite{}, 0)
}

func (cacheWrite) accept(*stage, item, sim.Tick) acceptResult { return acceptSync }
