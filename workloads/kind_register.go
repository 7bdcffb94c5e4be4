package workloads

import "github.com/nicsim/nicsim/nic"

// register_mr: one operation is NdkRegisterMr of `pages` 4 KiB pages of a
// normal MR (one MDL piece, or `pieces` page-aligned pieces), then
// NdkDeregisterMr of it, both through the provider's firmware command path
// (docs/nic.md; docs/sources.md 4). The parts `register` and `deregister`
// are each call's own latency, call to callback. Its source is in
// workloads/traffic (register.go).

// RegisterMRParams are the keys of register_mr.
type RegisterMRParams struct {
	Pages  Dist     `yaml:"pages" json:"pages" check:"1..262144"`
	Pieces uint32   `yaml:"pieces" json:"pieces" check:"1..64"`
	Rights []string `yaml:"rights" json:"rights" check:"len:0..3 local_write|remote_read|remote_write"`
}

func newRegisterMRParams() any {
	return &RegisterMRParams{Pages: Fixed(1), Pieces: 1, Rights: []string{"local_write", "remote_read", "remote_write"}}
}

func checkRegisterMR(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*RegisterMRParams)
	a := &w.Adapter.NIC
	if b := p.Pages.Largest() * nic.PageSizeBytes; b > a.MaxRegistrationSizeBytes {
		c.Errorf("pages", "pages up to %d (%d bytes) exceed adapter.nic.max_registration_size_bytes = %d (NDK_ADAPTER_INFO.MaxRegistrationSize)",
			p.Pages.Largest(), b, a.MaxRegistrationSizeBytes)
	}
	checkNICTables(c, w, "pages", "the NIC generators' MRs (streams x outstanding x pages for register_mr) and the regions")
}

func init() {
	RegisterKind(Kind{Name: "register_mr",
		Summary: "NdkRegisterMr of a normal MR then NdkDeregisterMr of it, through the firmware command path; parts register and deregister",
		Params:  newRegisterMRParams, Check: checkRegisterMR})
}
