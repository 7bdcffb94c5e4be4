package workloads

import "github.com/nicsim/nicsim/nic"

// rdma_write, rdma_read, send: two-host traffic. Host a (the model's NIC)
// is the initiator; host b, built only when a generator has a remote kind,
// is the responder, joined to a by the wire (adapter.wire). One operation
// is one request on one QP of a; it completes when its CQE is visible in
// a's host memory (latency: post to CQE). Their source is in
// workloads/traffic (rdma.go).

// RDMAParams are the keys of rdma_write, rdma_read and send.
type RDMAParams struct {
	SizeBytes    Dist     `yaml:"size_bytes" json:"size_bytes" check:"0..16777216"`
	RemotePages  uint32   `yaml:"remote_pages" json:"remote_pages" check:"1..65536"`
	RemoteMRs    uint32   `yaml:"remote_mrs" json:"remote_mrs" check:"1..1048576"`
	RemoteMR     *Dist    `yaml:"remote_mr" json:"remote_mr,omitempty" check:"0..1048575"`
	AlignBytes   uint64   `yaml:"align_bytes" json:"align_bytes" check:"1..1048576"`
	RemoteRights []string `yaml:"remote_rights" json:"remote_rights" check:"len:0..2 remote_read|remote_write"`
	// ReceiveDepth is the receives host b keeps posted per QP (send only);
	// 0 gives ReceiveDepthFor's default.
	ReceiveDepth uint32 `yaml:"receive_depth" json:"receive_depth" check:"0..65536"`
}

// ReceiveDepthFor is the receives a send generator keeps posted per QP:
// receive_depth, or by default 4 x outstanding, as perftest keeps 512
// receives posted against 128 sends in flight (docs/sources.md 12), at
// most max_receive_queue_depth.
func ReceiveDepthFor(p *RDMAParams, outstanding int, maxDepth uint32) uint32 {
	if p.ReceiveDepth != 0 {
		return p.ReceiveDepth
	}
	return uint32(min(4*uint64(outstanding), uint64(maxDepth)))
}

// rdmaParams returns the parameters' defaults, with the remote rights the
// operation needs (none for send: its buffers are receives).
func rdmaParams(rights ...string) func() any {
	return func() any {
		return &RDMAParams{SizeBytes: Fixed(64), RemotePages: 16, RemoteMRs: 1, AlignBytes: 64, RemoteRights: append([]string(nil), rights...)}
	}
}

// remoteQPs is the QPs each host needs for the remote generators of w.
func remoteQPs(w *Workload) uint64 {
	var qps uint64
	for i := range w.Generators {
		if isRemote(w.Generators[i].Kind) {
			qps += uint64(w.Generators[i].Streams)
		}
	}
	return qps
}

func checkRemoteQPs(c *Checker, w *Workload) {
	if qps := remoteQPs(w); qps > uint64(w.Adapter.NIC.QPsMax) {
		c.Errorf("streams", "the remote generators need %d QPs per host, more than adapter.nic.qps_max = %d", qps, w.Adapter.NIC.QPsMax)
	}
}

func checkRDMA(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*RDMAParams)
	a := &w.Adapter.NIC
	if l, r := p.SizeBytes.Largest(), uint64(p.RemotePages)*nic.PageSizeBytes; l > r {
		c.Errorf("size_bytes", "sizes up to %d exceed remote_pages x 4096 = %d", l, r)
	}
	if g.Outstanding > int(a.MaxInitiatorQueueDepth) {
		c.Errorf("outstanding", "%d exceeds adapter.nic.max_initiator_queue_depth = %d", g.Outstanding, a.MaxInitiatorQueueDepth)
	}
	checkReceiveDepth(c, g, p, a.MaxReceiveQueueDepth)
	checkRemoteMRs(c, g.Kind, p)
	checkRemoteQPs(c, w)
	checkRemoteTables(c, w)
}

// checkReceiveDepth checks a send generator's receives per QP: at least
// its sends in flight, at most the adapter's receive queue; receive_depth
// only for send.
func checkReceiveDepth(c *Checker, g *Generator, p *RDMAParams, maxDepth uint32) {
	switch {
	case g.Kind != "send" && p.ReceiveDepth != 0:
		c.Errorf("receive_depth", "applies to send only: %s posts no receives", g.Kind)
	case g.Kind != "send":
	case g.Outstanding > int(maxDepth):
		c.Errorf("outstanding", "%d receives per QP exceed adapter.nic.max_receive_queue_depth = %d", g.Outstanding, maxDepth)
	case p.ReceiveDepth > maxDepth:
		c.Errorf("receive_depth", "%d receives per QP exceed adapter.nic.max_receive_queue_depth = %d", p.ReceiveDepth, maxDepth)
	case p.ReceiveDepth != 0 && p.ReceiveDepth < uint32(g.Outstanding):
		c.Errorf("receive_depth", "%d receives per QP are fewer than the %d sends in flight (outstanding): every QP would wait on RNR NAKs", p.ReceiveDepth, g.Outstanding)
	}
}

// remoteWindowPages is the host b address window of one remote generator
// (workloads/traffic: rdmaGenStride, 4 GiB) in pages: its remote MRs lie
// side by side in it.
const remoteWindowPages = 1 << 20

// checkRemoteMRs checks the choice of remote MR: several MRs only for the
// kinds that address one (rdma_write, rdma_read), side by side in the
// generator's window, and a remote_mr distribution inside 0..remote_mrs-1.
func checkRemoteMRs(c *Checker, kind string, p *RDMAParams) {
	if kind == "send" && (p.RemoteMRs > 1 || p.RemoteMR != nil) {
		c.Errorf("remote_mrs", "send posts its receives on one MR of host b: remote_mrs and remote_mr apply to rdma_write and rdma_read")
		return
	}
	if n := uint64(p.RemoteMRs) * uint64(p.RemotePages); n > remoteWindowPages {
		c.Errorf("remote_mrs", "remote_mrs x remote_pages = %d pages exceed a generator's %d-page (4 GiB) window on host b", n, remoteWindowPages)
	}
	if p.RemoteMR != nil && p.RemoteMR.Largest() >= uint64(p.RemoteMRs) {
		c.Errorf("remote_mr", "MR index %d is out of range: remote_mrs = %d gives indexes 0..%d", p.RemoteMR.Largest(), p.RemoteMRs, p.RemoteMRs-1)
	}
}

// checkRemoteTables checks that host b's MRs (the remote generators'
// remote_mrs, each of remote_pages pages) fit its key table and MTT: host b
// has the adapter of host a.
func checkRemoteTables(c *Checker, w *Workload) {
	var keys, mtt uint64
	for i := range w.Generators {
		if p, ok := w.Generators[i].Params.(*RDMAParams); ok {
			keys += uint64(p.RemoteMRs)
			mtt += uint64(p.RemoteMRs) * uint64(p.RemotePages)
		}
	}
	if keys > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("remote_mrs", "host b's MRs need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d", keys, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf("remote_mrs", "host b's MRs need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d", mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}

// pagesOf is the pages n bytes from a page boundary touch.
func pagesOf(n uint64) uint64 { return (n + nic.PageSizeBytes - 1) / nic.PageSizeBytes }

// Host memory the remote kinds write (workloads/traffic, rdma.go): a Write
// anywhere in the remote MR on b; a Read's data into the local buffer on
// a, from its start; a Send into the receive buffer at the start of the
// remote MR on b.
func writeHostPages(g *Generator) (a, b uint64) {
	p := g.Params.(*RDMAParams)
	return 0, uint64(p.RemoteMRs) * uint64(p.RemotePages)
}

// rdmaSourceBytes is the records a remote generator keeps beyond its slots:
// per remote MR on host b, its MR object, what its creation through the
// firmware leaves held, and the source's pointer and token for it.
func rdmaSourceBytes(g *Generator) uint64 {
	o := nic.Objects()
	return uint64(g.Params.(*RDMAParams).RemoteMRs) * (o.MR + o.Create + 8 + 4)
}

func readHostPages(g *Generator) (a, b uint64) {
	return pagesOf(g.Params.(*RDMAParams).SizeBytes.Largest()), 0
}

func sendHostPages(g *Generator) (a, b uint64) {
	p := g.Params.(*RDMAParams)
	return 0, pagesOf(min(p.SizeBytes.Largest(), uint64(p.RemotePages)*nic.PageSizeBytes))
}

func init() {
	RegisterKind(Kind{Name: "rdma_write", Remote: true,
		Summary: "NdkWrite of size_bytes from host a into a registered remote MR on host b, over the wire",
		Params:  rdmaParams("remote_write"), Check: checkRDMA, HostPages: writeHostPages, SourceBytes: rdmaSourceBytes})
	RegisterKind(Kind{Name: "rdma_read", Remote: true,
		Summary: "NdkRead of size_bytes from a registered remote MR on host b into host a, over the wire",
		Params:  rdmaParams("remote_read"), Check: checkRDMA, HostPages: readHostPages, SourceBytes: rdmaSourceBytes})
	RegisterKind(Kind{Name: "send", Remote: true,
		Summary: "NdkSend of size_bytes from host a to receives host b keeps posted, over the wire",
		Params:  rdmaParams(), Check: checkRDMA, HostPages: sendHostPages})
}
