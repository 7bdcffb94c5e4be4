package nic

import "strings"

// heldAcross lists, for the adapter's pools that report their waits, the
// servers their units are held across (sim.Meter.HeldAcross), by name
// relative to the adapter ("NIC"): requests wait for such a pool whenever
// one of those servers binds, so bound_by does not list it beside them.
// A pool not listed (a QP's fetch, which serves every WR waiting at once;
// the responder's buffer and the receive buffer, held across both hosts and
// the wire) is never listed beside a server. The PCIe tags and credits
// declare theirs in pcie.
var heldAcross = []struct {
	pool    string // the end of its name (an engine's pools: every engine's)
	servers []string
}{
	{".TPT.MPTCache.MSHRs", []string{".PCIe.", ".DMA.ReadChannels"}}, // a fill: a DMA read
	{".TPT.MTTCache.MSHRs", []string{".PCIe.", ".DMA.ReadChannels"}},
	{".WQEFetch.Reads", []string{".PCIe.", ".DMA.ReadChannels"}},
	{".TPT.Writes", []string{".PCIe.Up", ".DMA.WriteChannels"}}, // until the link takes the write
	// and the wire, which NewWire adds: from the payload's read until the
	// packet has left
	{".Requester.TxBuffer", []string{".PCIe.", ".DMA.ReadChannels"}},
	{".Responder.TxBuffer", []string{".PCIe.", ".DMA.ReadChannels"}},
	{".PageList.Fetches", []string{".PCIe.", ".DMA.ReadChannels"}}, // each engine's page-list reads
}

// declareHeldAcross declares each pool's servers on its meter.
func (a *Adapter) declareHeldAcross() {
	for _, m := range a.env.Meters.List() {
		rest, ok := strings.CutPrefix(m.Name(), a.name)
		if !ok || !m.ReportsWaits() {
			continue
		}
		for _, h := range heldAcross {
			if strings.HasSuffix(rest, h.pool) {
				for _, s := range h.servers {
					m.HeldAcross(a.name + s)
				}
			}
		}
	}
}
