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
	TLPBytes            uint64             // TLP bytes: payload + headers + framing + ECRC
	PayloadBytes        uint64             // data bytes carried by TLPs
	WireBytes           uint64             // every byte: TLPs, DLLPs, SKP ordered sets
	ACKs                uint64             // ACK DLLPs
	UpdateFCs           uint64             // UpdateFC DLLPs
	DLLPBytes           uint64             // bytes of ACK and UpdateFC DLLPs
	SKPs                uint64             // SKP ordered sets
	SKPBytes            uint64             // bytes of SKP ordered sets
	BusyPS              uint64             // time the transmitter was sending
	CreditStalls        uint64             // times a ready TLP found its receiver out of credits
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

	Reads          uint64        // DMA reads completed
	ReadBytes      uint64        // bytes of completed DMA reads
	Writes         uint64        // DMA writes completed (last MWr sent)
	WriteBytes     uint64        // bytes of completed DMA writes
	Refused        uint64        // DMA requests refused (queue full or bad arguments)
	TagStalls      uint64        // times a ready MRd found every tag in use
	TagStallPS     uint64        // time spent with an MRd waiting for a tag
	TagsInUseMax   uint64        // largest number of tags in use at once
	CplOutOfOrder  uint64        // completions not in address order within a request (must stay 0)
	MMIOWrites     uint64        // MMIO writes arrived at the NIC
	MMIOBytes      uint64        // bytes of MMIO writes arrived at the NIC
	MSIXs          uint64        // MSI-X writes arrived at the host
	HostReads      uint64        // MRd TLPs the host answered
	ReadLatencyPS  sim.Histogram // DMA read: Read call to last completion byte at the NIC
	WriteLatencyPS sim.Histogram // DMA write: Write call to last MWr sent
}

func registerDir(r *sim.Registry, p string, d *DirStats, now func() sim.Tick) error {
	type c struct {
		n, u, desc string
		v          *uint64
	}
	cs := []c{
		{".TLPs.MWr", "TLPs", "memory write TLPs sent", &d.TLPs[KindMWr]},
		{".TLPs.MRd", "TLPs", "memory read request TLPs sent", &d.TLPs[KindMRd]},
		{".TLPs.CplD", "TLPs", "completion-with-data TLPs sent", &d.TLPs[KindCplD]},
		{".TLPBytes", "bytes", "TLP bytes on the wire (payload + header + framing + ECRC)", &d.TLPBytes},
		{".PayloadBytes", "bytes", "data bytes carried by TLPs", &d.PayloadBytes},
		{".WireBytes", "bytes", "all bytes on the wire: TLPs, DLLPs, SKP ordered sets", &d.WireBytes},
		{".ACKs", "DLLPs", "ACK DLLPs sent", &d.ACKs},
		{".UpdateFCs", "DLLPs", "UpdateFC DLLPs sent", &d.UpdateFCs},
		{".DLLPBytes", "bytes", "bytes of ACK and UpdateFC DLLPs", &d.DLLPBytes},
		{".SKPs", "ordered sets", "SKP ordered sets sent", &d.SKPs},
		{".SKPBytes", "bytes", "bytes of SKP ordered sets", &d.SKPBytes},
		{".BusyPS", "ps", "time the transmitter was busy", &d.BusyPS},
		{".CreditStalls", "stalls", "times a ready TLP found the receiver out of credits", &d.CreditStalls},
		{".CreditStalls.P", "stalls", "credit stalls of posted TLPs", &d.CreditStallsByClass[classP]},
		{".CreditStalls.NP", "stalls", "credit stalls of non-posted TLPs", &d.CreditStallsByClass[classNP]},
		{".CreditStalls.Cpl", "stalls", "credit stalls of completions", &d.CreditStallsByClass[classCpl]},
	}
	for _, x := range cs {
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
	p := l.name + ".DMA"
	cs := []struct {
		n, u, desc string
		v          *uint64
	}{
		{".Reads", "requests", "DMA reads completed", &s.Reads},
		{".ReadBytes", "bytes", "bytes of completed DMA reads", &s.ReadBytes},
		{".Writes", "requests", "DMA writes completed", &s.Writes},
		{".WriteBytes", "bytes", "bytes of completed DMA writes", &s.WriteBytes},
		{".Refused", "requests", "DMA requests refused", &s.Refused},
		{".TagStalls", "stalls", "times an MRd waited for a free tag", &s.TagStalls},
		{".TagStallPS", "ps", "time an MRd waited for a free tag", &s.TagStallPS},
		{".TagsInUseMax", "tags", "most tags in use at once", &s.TagsInUseMax},
		{".CplOutOfOrder", "TLPs", "completions out of address order (must be 0)", &s.CplOutOfOrder},
	}
	for _, x := range cs {
		if err := r.Counter(p+x.n, x.u, x.desc, x.v); err != nil {
			return err
		}
	}
	if err := r.Histogram(p+".ReadLatency", "ps", "DMA read latency: request to last completion byte", &s.ReadLatencyPS); err != nil {
		return err
	}
	if err := r.Histogram(p+".WriteLatency", "ps", "DMA write latency: request to last MWr sent", &s.WriteLatencyPS); err != nil {
		return err
	}
	for _, x := range []struct {
		n, u, desc string
		v          *uint64
	}{
		{".MMIO.Writes", "writes", "MMIO writes arrived at the NIC", &s.MMIOWrites},
		{".MMIO.Bytes", "bytes", "MMIO bytes arrived at the NIC", &s.MMIOBytes},
		{".MSIX", "interrupts", "MSI-X writes arrived at the host", &s.MSIXs},
		{".Host.Reads", "TLPs", "MRd TLPs the host answered", &s.HostReads},
	} {
		if err := r.Counter(l.name+x.n, x.u, x.desc, x.v); err != nil {
			return fmt.Errorf("pcie: %w", err)
		}
	}
	return nil
}
