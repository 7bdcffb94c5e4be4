package workloads

import "github.com/nicsim/nicsim/nic"

// bind_invalidate: one operation is the chain NdkBind of a memory window to
// part of a registered normal MR, then NdkInvalidate of the window, on one
// QP through the NIC's send-queue pipeline (docs/nic.md). The operation
// completes when the Invalidate's CQE is visible; its latency runs from
// arrival to then. The Bind's and the Invalidate's own latencies (post to
// CQE) are reported as the parts `bind` and `invalidate`. Its source is in
// workloads/traffic (bind.go).

// BindParams are the keys of bind_invalidate.
type BindParams struct {
	MRPages     uint32   `yaml:"mr_pages" json:"mr_pages" check:"1..65536"`
	WindowBytes Dist     `yaml:"window_bytes" json:"window_bytes" check:"1..268435456"`
	Rights      []string `yaml:"rights" json:"rights" check:"len:0..2 remote_read|remote_write"`
}

func newBindParams() any {
	return &BindParams{MRPages: 16, WindowBytes: Fixed(4096), Rights: []string{"remote_read", "remote_write"}}
}

func checkBind(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*BindParams)
	a := &w.Adapter.NIC
	mrBytes := uint64(p.MRPages) * nic.PageSizeBytes
	if l := p.WindowBytes.Largest(); l > mrBytes {
		c.Errorf("window_bytes", "windows up to %d bytes do not fit the MR of mr_pages x 4096 = %d bytes", l, mrBytes)
	}
	if l := p.WindowBytes.Largest(); l > a.MaxWindowSizeBytes {
		c.Errorf("window_bytes", "windows up to %d bytes exceed the adapter's MaxWindowSize (adapter.nic.max_window_size_bytes = %d)", l, a.MaxWindowSizeBytes)
	}
	if b := mrBytes; b > a.MaxRegistrationSizeBytes {
		c.Errorf("mr_pages", "%d bytes exceed adapter.nic.max_registration_size_bytes = %d", b, a.MaxRegistrationSizeBytes)
	}
	checkTwoWRDepth(c, a, g)
	var qps uint64
	for i := range w.Generators {
		switch w.Generators[i].Params.(type) {
		case *FRInvParams, *BindParams:
			qps += uint64(w.Generators[i].Streams)
		}
	}
	if qps > uint64(a.QPsMax) {
		c.Errorf("streams", "the NIC generators need %d QPs in all, more than adapter.nic.qps_max = %d", qps, a.QPsMax)
	}
	checkNICTables(c, w, "mr_pages", "the NIC generators' MRs and the regions")
}

func init() {
	RegisterKind(Kind{Name: "bind_invalidate",
		Summary: "NdkBind of a memory window to a registered MR then NdkInvalidate of it on one QP, through the NIC pipeline; parts bind and invalidate",
		Params:  newBindParams, Check: checkBind})
}
