package pcie

import "fmt"

// Direction names a DMA stream kind for the byte-count model and the sweep.
type Direction string

// Stream directions, seen from the NIC.
const (
	DirRead  Direction = "read"  // NIC reads host memory: MRd up, CplD down
	DirWrite Direction = "write" // NIC writes host memory: MWr up
	DirRdWr  Direction = "rdwr"  // equal-size reads and writes at the same rate
)

// ParseDirection checks a direction name.
func ParseDirection(s string) (Direction, error) {
	switch Direction(s) {
	case DirRead, DirWrite, DirRdWr:
		return Direction(s), nil
	}
	return "", fmt.Errorf("pcie: direction %q must be read, write or rdwr", s)
}

// LinkShare is the fraction of a direction's raw byte time that carries
// TLPs: 1 - (ACK + UpdateFC + SKP) share, docs/sources.md 11. One 8 B ACK per
// A bytes, one 8 B UpdateFC per A bytes, one 4 B SKP per 1538 bytes.
func LinkShare(s Spec) float64 {
	a := float64(DLLPIntervalBytes(s.Gen, s.Lanes, s.MPSBytes))
	return 1 - 2*DLLPBytes/a - float64(SKPBytes)/SKPIntervalBytes
}

// TransferWireBytes is the TLP bytes (payload and per-TLP overhead) one
// transfer of size bytes puts on the upstream (NIC->host) and downstream
// (host->NIC) direction, for naturally aligned transfers.
func TransferWireBytes(s Spec, dir Direction, size uint64) (up, down uint64) {
	mwr := OverheadBytes(KindMWr, s.Addr64, s.ECRC)
	mrd := OverheadBytes(KindMRd, s.Addr64, s.ECRC)
	cpl := OverheadBytes(KindCplD, s.Addr64, s.ECRC)
	ceil := func(a, b uint64) uint64 { return (a + b - 1) / b }
	cplUnit := uint64(s.MPSBytes)
	if s.CompletionSplit == SplitRCB {
		cplUnit = uint64(s.RCBBytes)
	}
	if dir == DirWrite || dir == DirRdWr {
		up += size + ceil(size, uint64(s.MPSBytes))*mwr
	}
	if dir == DirRead || dir == DirRdWr {
		up += ceil(size, uint64(s.MRRSBytes)) * mrd
		down += size + ceil(size, cplUnit)*cpl
	}
	return up, down
}

// ByteModelGoodputGbps is the analytic byte-count model of docs/sources.md 11
// (pcie-model's mem_bw): each direction carries TLPs at raw x LinkShare;
// transfers go at the rate of the busier direction. The result is payload
// Gb/s (10^9) in one direction: for rdwr it is the write payload rate.
func ByteModelGoodputGbps(s Spec, dir Direction, size uint64) float64 {
	up, down := TransferWireBytes(s, dir, size)
	tlpGbps := RawGbps(s.Gen, s.Lanes) * LinkShare(s)
	busiest := float64(max(up, down))
	return tlpGbps * float64(size) / busiest
}
