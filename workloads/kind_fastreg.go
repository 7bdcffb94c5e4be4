package workloads

// fast_register_invalidate: one operation is the chain NdkFastRegister of a
// fast-register MR, then NdkInvalidate of the same MR on the same QP,
// through the NIC's send-queue pipeline (docs/nic.md). The operation
// completes when the Invalidate's CQE is visible in host memory; the
// FastRegister's and the Invalidate's own latencies (post to CQE) are
// reported as parts. Its source, with the DEFER chains of defer_chain, is
// in workloads/traffic (fastreg.go).

// FRInvParams are the keys of fast_register_invalidate.
type FRInvParams struct {
	Pages          Dist     `yaml:"pages" json:"pages" check:"1..65536"`
	MRPages        uint32   `yaml:"mr_pages" json:"mr_pages" check:"0..65536"`
	RemoteAccess   bool     `yaml:"remote_access" json:"remote_access"`
	Rights         []string `yaml:"rights" json:"rights" check:"len:0..2 remote_read|remote_write"`
	InlinePageList *bool    `yaml:"inline_page_list" json:"inline_page_list,omitempty"`
	DeferChain     int      `yaml:"defer_chain" json:"defer_chain" check:"1..1024"`
	SilentSuccess  bool     `yaml:"silent_success" json:"silent_success"`
}

func newFRInvParams() any {
	return &FRInvParams{Pages: Fixed(1), RemoteAccess: true, Rights: []string{"remote_read", "remote_write"}, DeferChain: 1}
}

// MRPagesOrLargest is the page count the MRs are initialised for: mr_pages,
// or the largest of pages when mr_pages is 0.
func (p *FRInvParams) MRPagesOrLargest() uint32 {
	if p.MRPages > 0 {
		return p.MRPages
	}
	return uint32(max(p.Pages.Largest(), 1))
}

func checkFRInv(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*FRInvParams)
	a := &w.Adapter.NIC
	if l := p.Pages.Largest(); l > uint64(a.FRMRPageCount) {
		c.Errorf("pages", "pages up to %d exceed adapter.nic.frmr_page_count = %d", l, a.FRMRPageCount)
	}
	if p.MRPages > a.FRMRPageCount {
		c.Errorf("mr_pages", "%d exceeds adapter.nic.frmr_page_count = %d", p.MRPages, a.FRMRPageCount)
	}
	if l := p.Pages.Largest(); p.MRPages > 0 && l > uint64(p.MRPages) {
		c.Errorf("pages", "pages up to %d exceed mr_pages = %d (the MRs' initialised page count)", l, p.MRPages)
	}
	checkTwoWRDepth(c, a, g)
	if !p.RemoteAccess && len(p.Rights) > 0 {
		c.Errorf("rights", "remote rights on MRs initialised without remote_access fail every FastRegister (STATUS_ACCESS_VIOLATION); set remote_access: true or rights: []")
	}
	if p.InlinePageList != nil {
		// The NIC decides per adapter (a FastRegister of at most
		// inline_page_list_entries_max pages carries its list in the WQE);
		// the NDK call has no per-request choice, so the key sets the adapter.
		if !*p.InlinePageList {
			a.InlinePageListEntriesMax = 0
		} else if a.InlinePageListEntriesMax == 0 {
			c.Errorf("inline_page_list", "true needs adapter.nic.inline_page_list_entries_max > 0 (it is 0, set by the file or by another generator's inline_page_list: false): the NIC decides per adapter, not per request")
		}
	}
	checkFRInvTables(c, w)
}

// checkFRInvTables checks that the fast_register_invalidate generators' QPs
// and MRs, and the regions, fit the adapter.
func checkFRInvTables(c *Checker, w *Workload) {
	var qps, mrs, mtt uint64
	for i := range w.Generators {
		if gp, ok := w.Generators[i].Params.(*FRInvParams); ok {
			qps += uint64(w.Generators[i].Streams)
			n := uint64(w.Generators[i].Streams * w.Generators[i].Outstanding)
			mrs += n
			mtt += n * uint64(gp.MRPagesOrLargest())
		}
	}
	for _, r := range w.Regions {
		mrs++
		mtt += r.Pages
	}
	if qps > uint64(w.Adapter.NIC.QPsMax) {
		c.Errorf("streams", "the NIC generators need %d QPs in all, more than adapter.nic.qps_max = %d", qps, w.Adapter.NIC.QPsMax)
	}
	if mrs > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "MRs (streams x outstanding per NIC generator) and regions need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			mrs, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf("mr_pages", "MRs (streams x outstanding x mr_pages) and regions need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d",
			mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}

func init() {
	RegisterKind(Kind{Name: "fast_register_invalidate",
		Summary: "NdkFastRegister of an FR MR then NdkInvalidate of it on one QP, through the NIC pipeline; parts fast_register and invalidate",
		Params:  newFRInvParams, Check: checkFRInv})
}
