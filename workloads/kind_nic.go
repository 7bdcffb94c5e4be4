package workloads

import "github.com/nicsim/nicsim/nic"

// Checks shared by the kinds that post to the NIC.

// checkTwoWRDepth checks that a QP holds outstanding operations of two WRs
// each (a FastRegister or Bind and its Invalidate).
func checkTwoWRDepth(c *Checker, a *nic.Spec, g *Generator) {
	if d := 2 * g.Outstanding; d > int(a.MaxInitiatorQueueDepth) {
		c.Errorf("outstanding", "%d operations of 2 WRs need a QP depth of %d, more than adapter.nic.max_initiator_queue_depth = %d",
			g.Outstanding, d, a.MaxInitiatorQueueDepth)
	}
}

// nicMTTUse counts the key-table and MTT entries the NIC generators of w
// (fast_register_invalidate, bind_invalidate, register_mr) and the regions
// need at most.
func nicMTTUse(w *Workload) (keys, mtt uint64) {
	for i := range w.Generators {
		g := &w.Generators[i]
		slots := uint64(g.Streams * g.Outstanding)
		switch p := g.Params.(type) {
		case *FRInvParams:
			keys += slots
			mtt += slots * uint64(p.MRPagesOrLargest())
		case *BindParams:
			keys += slots + uint64(g.Streams)
			mtt += uint64(g.Streams) * uint64(p.MRPages)
		case *RegisterMRParams:
			keys += slots
			mtt += slots * p.Pages.Largest()
		}
	}
	for _, r := range w.Regions {
		keys++
		mtt += r.Pages
	}
	return keys, mtt
}

// checkNICTables checks that the NIC generators' MRs and windows and the
// regions fit the key table and the MTT; an MTT overflow is reported at
// mttKey, saying what counts (mttWhat).
func checkNICTables(c *Checker, w *Workload, mttKey, mttWhat string) {
	keys, mtt := nicMTTUse(w)
	if keys > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "the NIC generators' MRs and windows and the regions need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			keys, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf(mttKey, "%s need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d", mttWhat, mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}
