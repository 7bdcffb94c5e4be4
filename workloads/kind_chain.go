package workloads

import "github.com/nicsim/nicsim/nic"

// fr_write_send_inv: the two-host chain fast_register -> rdma_write ->
// send_and_invalidate, driven from one simulation: host b fast-registers an
// FR MR of pages pages, host a RDMA-Writes size_bytes into it under its
// remote token, then SendAndInvalidates the token. Parts fast_register,
// write and send_and_invalidate are each request's post-to-CQE latency.
// Its source is in workloads/traffic (chain.go).

// ChainParams are the keys of fr_write_send_inv.
type ChainParams struct {
	Pages     Dist `yaml:"pages" json:"pages" check:"1..65536"`
	SizeBytes Dist `yaml:"size_bytes" json:"size_bytes" check:"0..16777216"`
}

func newChainParams() any { return &ChainParams{Pages: Fixed(1), SizeBytes: Fixed(64)} }

func checkChain(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*ChainParams)
	a := &w.Adapter.NIC
	if l := p.Pages.Largest(); l > uint64(a.FRMRPageCount) {
		c.Errorf("pages", "pages up to %d exceed adapter.nic.frmr_page_count = %d", l, a.FRMRPageCount)
	}
	if l := p.SizeBytes.Largest(); l > p.Pages.Largest()*nic.PageSizeBytes {
		c.Errorf("size_bytes", "sizes up to %d exceed pages x 4096 (a Write larger than its registration is cut to it)", l)
	}
	if g.Outstanding > int(a.MaxInitiatorQueueDepth) || g.Outstanding > int(a.MaxReceiveQueueDepth) {
		c.Errorf("outstanding", "%d exceeds adapter.nic.max_initiator_queue_depth or max_receive_queue_depth", g.Outstanding)
	}
	var mrs uint64
	for i := range w.Generators {
		if w.Generators[i].Kind == "fr_write_send_inv" {
			mrs += uint64(w.Generators[i].Streams * w.Generators[i].Outstanding)
		}
	}
	checkRemoteQPs(c, w)
	if mrs > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "FR MRs on host b (streams x outstanding) need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			mrs, w.Adapter.MTT.KeyTableEntriesMax)
	}
}

// chainHostPages: each operation slot's Write lands at the start of the
// slot's own pages on host b (workloads/traffic, chain.go), cut to the
// registration; the Send that follows is zero-length.
func chainHostPages(g *Generator) (a, b uint64) {
	p := g.Params.(*ChainParams)
	perSlot := pagesOf(min(p.SizeBytes.Largest(), p.Pages.Largest()*nic.PageSizeBytes))
	return 0, uint64(g.Streams*g.Outstanding) * perSlot
}

// chainSourceBytes is the page list of every slot, kept by the source
// (8 B per page of the largest registration).
func chainSourceBytes(g *Generator) uint64 {
	return uint64(g.Streams*g.Outstanding) * g.Params.(*ChainParams).Pages.Largest() * 8
}

func init() {
	RegisterKind(Kind{Name: "fr_write_send_inv", Remote: true,
		Summary: "two hosts: host b fast-registers an FR MR, host a RDMA-Writes into it, then SendAndInvalidates it; parts fast_register, write, send_and_invalidate",
		Params:  newChainParams, Check: checkChain, HostPages: chainHostPages, SourceBytes: chainSourceBytes})
}
