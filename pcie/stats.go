package pcie

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// DirStats counts what one direction of the link carried. Byte counts are
// bytes on the wire after line coding is removed (the unit of docs/sources.md
// 11's byte-count model).
type DirStats struct {
	TLPs                [kindCount]uint64  // TLPs by kind, counted when they start on the wire
	TLPBytes            uint64             `stat:"TLPBytes" unit:"bytes" desc:"TLP bytes on the wire (payload + header + framing + ECRC)"`
	PayloadBytes        uint64             `stat:"PayloadBytes" unit:"bytes" desc:"data bytes carried by TLPs"`
	WireBytes           uint64             `stat:"WireBytes" unit:"bytes" desc:"all bytes on the wire: TLPs, DLLPs, SKP ordered sets"`
	ACKs                uint64             `stat:"ACKs" unit:"DLLPs" desc:"ACK DLLPs sent"`
	UpdateFCs           uint64             `stat:"UpdateFCs" unit:"DLLPs" desc:"UpdateFC DLLPs sent"`
	DLLPBytes           uint64             `stat:"DLLPBytes" unit:"bytes" desc:"bytes of ACK and UpdateFC DLLPs"`
	SKPs                uint64             `stat:"SKPs" unit:"ordered sets" desc:"SKP ordered sets sent"`
	SKPBytes            uint64             `stat:"SKPBytes" unit:"bytes" desc:"bytes of SKP ordered sets"`
	BusyPS              uint64             `stat:"BusyPS" unit:"ps" desc:"time the transmitter was busy"`
	CreditStalls        uint64             `stat:"CreditStalls" unit:"stalls" desc:"times a ready TLP found the receiver out of credits"`
	CreditStallsByClass [classCount]uint64 // the same, by class P, NP, Cpl
}

// TLPCount is the number of TLPs of every kind.
func (d *DirStats) TLPCount() uint64 {
	var n uint64
	for _, v := range d.TLPs {
		n += v
	}
	return n
}

// Utilization is the share of elapsed time the direction was busy.
func Utilization(d *DirStats, elapsed sim.Tick) float64 {
	if elapsed == 0 {
		return 0
	}
	return float64(d.BusyPS) / float64(elapsed)
}

// Stats is the link's statistics: Up is NIC->host, Down is host->NIC.
type Stats struct {
	Up   DirStats
	Down DirStats

	Reads          uint64        `stat:"DMA.Reads" unit:"requests" desc:"DMA reads completed"`
	ReadBytes      uint64        `stat:"DMA.ReadBytes" unit:"bytes" desc:"bytes of completed DMA reads"`
	Writes         uint64        `stat:"DMA.Writes" unit:"requests" desc:"DMA writes completed (visible in host memory)"`
	WriteBytes     uint64        `stat:"DMA.WriteBytes" unit:"bytes" desc:"bytes of completed DMA writes"`
	Refused        uint64        `stat:"DMA.Refused" unit:"requests" desc:"DMA requests refused"` // queue full or bad arguments
	TagStalls      uint64        `stat:"DMA.TagStalls" unit:"stalls" desc:"times an MRd waited for a free tag"`
	TagStallPS     uint64        `stat:"DMA.TagStallPS" unit:"ps" desc:"time an MRd waited for a free tag"`
	TagsInUseMax   uint64        `stat:"DMA.TagsInUseMax" unit:"tags" desc:"most tags in use at once"`
	CplOutOfOrder  uint64        `stat:"DMA.CplOutOfOrder" unit:"TLPs" desc:"completions out of address order (must be 0)"`
	MMIOWrites     uint64        `stat:"MMIO.Writes" unit:"writes" desc:"MMIO writes arrived at the NIC"`
	MMIOBytes      uint64        `stat:"MMIO.Bytes" unit:"bytes" desc:"MMIO bytes arrived at the NIC"`
	MSIXs          uint64        `stat:"MSIX" unit:"interrupts" desc:"MSI-X writes arrived at the host"`
	HostReads      uint64        `stat:"Host.Reads" unit:"TLPs" desc:"MRd TLPs the host answered"`
	IOTLBLookups   uint64        `stat:"Host.IOTLB.Lookups" unit:"lookups" desc:"IOTLB lookups of DMA TLPs (IOMMU on)"`
	IOTLBMisses    uint64        `stat:"Host.IOTLB.Misses" unit:"lookups" desc:"IOTLB misses: IOMMU page walks"`
	ReadLatencyPS  sim.Histogram `stat:"DMA.ReadLatency" unit:"ps" desc:"DMA read latency: request to last completion byte"`
	WriteLatencyPS sim.Histogram `stat:"DMA.WriteLatency" unit:"ps" desc:"DMA write latency: request to data visible in host memory"`
}

func registerDir(r *sim.Registry, p string, d *DirStats, now func() sim.Tick) error {
	if err := r.Struct(p+".", d); err != nil {
		return err
	}
	for _, x := range []struct {
		n, u, desc string
		v          *uint64
	}{
		{".TLPs.MWr", "TLPs", "memory write TLPs sent", &d.TLPs[KindMWr]},
		{".TLPs.MRd", "TLPs", "memory read request TLPs sent", &d.TLPs[KindMRd]},
		{".TLPs.CplD", "TLPs", "completion-with-data TLPs sent", &d.TLPs[KindCplD]},
		{".CreditStalls.P", "stalls", "credit stalls of posted TLPs", &d.CreditStallsByClass[classP]},
		{".CreditStalls.NP", "stalls", "credit stalls of non-posted TLPs", &d.CreditStallsByClass[classNP]},
		{".CreditStalls.Cpl", "stalls", "credit stalls of completions", &d.CreditStallsByClass[classCpl]},
	} {
		if err := r.Counter(p+x.n, x.u, x.desc, x.v); err != nil {
			return err
		}
	}
	if err := r.Formula(p+".TLPs", "TLPs", "TLPs sent, all kinds", func() float64 { return float64(d.TLPCount()) }); err != nil {
		return err
	}
	return r.Formula(p+".Utilization", "ratio", "busy time / elapsed time", func() float64 { return Utilization(d, now()) })
}

// Register adds every statistic of the link under name.
func (l *Link) Register(r *sim.Registry) error {
	s := &l.stats
	now := l.eng.Now
	if err := registerDir(r, l.name+".Up", &s.Up, now); err != nil {
		return err
	}
	if err := registerDir(r, l.name+".Down", &s.Down, now); err != nil {
		return err
	}
	if err := r.Struct(l.name+".", s); err != nil {
		return fmt.Errorf("pcie: %w", err)
	}
	return nil
}
