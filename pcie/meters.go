package pcie

import (
	"strings"

	"github.com/nicsim/nicsim/sim"
)

// owners names the NIC and the host a link joins, for their meters: the
// link's parent is the NIC ("NIC.PCIe" -> "NIC", "B.NIC.PCIe" -> "B.NIC");
// the host is the NIC's sibling "Host" when the NIC is named "NIC"
// ("Host", "B.Host"), and "<nic>.Host" otherwise ("a.PCIe" -> "a.Host"). A
// link named without a parent joins "NIC" and "Host".
func owners(link string) (nic, host string) {
	i := strings.LastIndexByte(link, '.')
	if i < 0 {
		return "NIC", "Host"
	}
	nic = link[:i]
	j := strings.LastIndexByte(nic, '.')
	if nic[j+1:] == "NIC" {
		return nic, nic[:j+1] + "Host"
	}
	return nic, nic + ".Host"
}

// registerMeters registers a meter for every resource of the link that can
// bind a throughput, with these names (link "NIC.PCIe"):
//
//	NIC.PCIe.Up, NIC.PCIe.Down       serialisation busy time of each direction
//	NIC.PCIe.Tags                    read tags held
//	NIC.PCIe.Up.Credits.<pool>       credits of a finite pool the host advertised (PH, PD, NPH, NPD, CplH, CplD)
//	NIC.PCIe.Down.Credits.<pool>     credits of a finite pool the NIC advertised
//	NIC.DMA.ReadChannels             DMA read channels working
//	NIC.DMA.WriteChannels            DMA write channels working
//	Host.IOMMU.Walkers               IOMMU page walkers (only with the IOMMU on)
//
// AddMMIOSource registers each MMIO source's issue path as <source>.MMIO.
func (l *Link) registerMeters(ms *sim.Meters) error {
	nic, host := owners(l.name)
	add := func(name, unit string, capacity uint64) (*sim.Meter, error) {
		m, err := ms.New(name, unit, capacity)
		if err == nil {
			l.meters = append(l.meters, m)
		}
		return m, err
	}
	var err error
	must := func(m *sim.Meter, e error) *sim.Meter {
		if err == nil {
			err = e
		}
		return m
	}
	l.up.meter = must(add(l.name+".Up", "transmitters", 1))
	l.down.meter = must(add(l.name+".Down", "transmitters", 1))
	for _, t := range []*tx{l.up, l.down} {
		if t.meter != nil {
			t.meter.Serves() // serialisation time, its level kept with Set
		}
	}
	l.dma.tagMeter = must(add(l.name+".Tags", "tags", uint64(l.spec.TagsMax)))
	l.dma.tagMeter.TrackWaits()
	// from its MRd on the link, through the host's IOMMU, to its last CplD
	l.dma.tagMeter.HeldAcross(l.name+".", host+".IOMMU.")
	for _, t := range []*tx{l.up, l.down} {
		for cl := fcClass(0); cl < classCount; cl++ {
			for i, kind := range [2]string{"H", "D"} {
				if lim := t.cred.limit[cl][i]; lim != 0 {
					m := must(add(t.name+".Credits."+poolNames[cl]+kind, "credits", lim))
					m.TrackWaits()
					m.HeldAcross(l.name + ".") // until an UpdateFC on the other direction returns them
					t.cred.meters[cl][i] = m
					if m != nil {
						m.OnRead(t.peer.settleArrivals) // quiet UpdateFCs release credits
					}
				}
			}
		}
	}
	l.dma.rd.meter = must(add(nic+".DMA.ReadChannels", "channels", uint64(l.spec.DMAReadChannels)))
	l.dma.wr.meter = must(add(nic+".DMA.WriteChannels", "channels", uint64(l.spec.DMAWriteChannels)))
	for _, p := range []*path{&l.dma.rd, &l.dma.wr} {
		if p.meter != nil {
			p.meter.OnRead(p.settle)
			p.meter.Serves() // a channel works a request's fixed cycles
		}
	}
	if u := l.host.mem.iommu; u != nil {
		u.meter = must(add(host+".IOMMU.Walkers", "walkers", uint64(len(u.walkers))))
	}
	return err
}

// poolNames are the credit classes as pool names: P+H = PH, Cpl+D = CplD.
var poolNames = [classCount]string{"P", "NP", "Cpl"}

// settleMeters counts every held level up to now, so that a measured
// window closing at now is complete (the levels stay as they are).
func (l *Link) settleMeters(now sim.Tick) {
	for _, m := range l.meters {
		m.Set(now, m.InUse())
	}
}
