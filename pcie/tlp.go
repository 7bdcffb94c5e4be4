package pcie

import "github.com/nicsim/nicsim/sim"

// Kind is the type of a TLP or DLLP on the wire.
type Kind uint8

// TLP and link-layer packet kinds.
const (
	KindMWr  Kind = iota // memory write (posted)
	KindMRd              // memory read request (non-posted)
	KindCplD             // completion with data
	kindCount
)

var kindNames = [kindCount]string{"MWr", "MRd", "CplD"}

func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "?"
}

// fcClass is a flow-control class (PCIe Base Spec 2.6.1).
type fcClass uint8

const (
	classP   fcClass = iota // posted: MWr, MSI-X
	classNP                 // non-posted: MRd
	classCpl                // completions
	classCount
)

// Wire sizes, docs/sources.md section 11 (and pcie-model).
const (
	FramingBytes     = 8  // 2 B sequence number + 4 B LCRC + 2 B framing per TLP
	CommonHdrBytes   = 4  // first header DW common to every TLP
	Addr64HdrBytes   = 12 // MWr/MRd type-specific header, 64-bit address (4DW header in total)
	Addr32HdrBytes   = 8  // MWr/MRd type-specific header, 32-bit address (3DW header)
	CplHdrBytes      = 8  // CplD type-specific header
	ECRCBytes        = 4  // optional TLP digest
	DLLPBytes        = 8  // 2 B framing + 4 B DLLP + 2 B CRC
	SKPBytes         = 4  // one SKP ordered set
	SKPIntervalBytes = 1538
	MMIOLineBytes    = 64 // a write-combined store leaves as one 64 B MWr (docs/sources.md 2)
	DoorbellBytes    = 8  // an uncached doorbell store
	MSIXBytes        = 4  // MSI-X data is one DW
)

// OverheadBytes is the wire cost of one TLP of kind k beyond its payload.
// addr64 selects the 4DW header for MWr/MRd (ignored for CplD).
func OverheadBytes(k Kind, addr64, ecrc bool) uint64 {
	n := uint64(FramingBytes + CommonHdrBytes)
	switch k {
	case KindMWr, KindMRd:
		if addr64 {
			n += Addr64HdrBytes
		} else {
			n += Addr32HdrBytes
		}
	case KindCplD:
		n += CplHdrBytes
	}
	if ecrc {
		n += ECRCBytes
	}
	return n
}

// ByteRate is the exact byte time of a link: ps per byte as a fraction.
// Gen1/2 use 8b/10b, gen3-5 128b/130b (docs/sources.md 11).
func ByteRate(gen, lanes int) sim.Rate {
	// GT/s per lane x2 so that gen1's 2.5 is an integer.
	gt2 := [...]uint64{0, 5, 10, 16, 32, 64}[gen]
	codeNum, codeDen := uint64(128), uint64(130)
	if gen <= 2 {
		codeNum, codeDen = 8, 10
	}
	// bytes/s = GT*1e9 * num/den * lanes / 8; ps/byte = 1e12 / that.
	num := uint64(8000) * codeDen * 2
	den := gt2 * codeNum * uint64(lanes)
	g := gcd(num, den)
	return sim.Rate{PSNum: num / g, PSDen: den / g}
}

// RawGbps is the raw rate of one direction after line coding, 10^9 b/s.
func RawGbps(gen, lanes int) float64 { return ByteRate(gen, lanes).GbitPerSecond() }

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// dllpIntervals holds the bytes of link time between ACK DLLPs (and, with
// the same values, between UpdateFC DLLPs) by width and MPS: the PCIe Base
// Spec rev 5.0 recommended AckNak latency tables 3-7..3-9 and UpdateFC
// tables 2-46..2-48 as transcribed by pcie-model (the source docs/sources.md 11
// cites). docs/sources.md 11 quotes the gen3 x8/x16 MPS 128/256 entries; the
// rest of the rows are taken from the same tables. Gen4 and gen5 reuse
// gen3's values, as pcie-model does.
var dllpIntervals = [3][5][6]uint64{
	// gen1: x1, x2, x4, x8, x16; MPS 128..4096
	{
		{237, 416, 559, 1071, 2095, 4143},
		{128, 217, 289, 545, 1057, 2081},
		{73, 118, 154, 282, 538, 1050},
		{67, 107, 86, 150, 278, 534},
		{48, 72, 86, 150, 278, 534},
	},
	// gen2
	{
		{288, 467, 610, 1122, 2146, 4194},
		{179, 268, 340, 596, 1108, 2132},
		{124, 169, 205, 333, 589, 1101},
		{118, 158, 137, 201, 329, 585},
		{99, 123, 137, 201, 329, 585},
	},
	// gen3, also gen4 and gen5
	{
		{333, 512, 655, 1167, 2191, 4239},
		{224, 313, 385, 641, 1153, 2177},
		{169, 214, 250, 378, 634, 1146},
		{163, 203, 182, 246, 374, 630},
		{144, 168, 182, 246, 374, 630},
	},
}

// DLLPIntervalBytes is the recommended link time, in bytes, between two
// ACK DLLPs and between two UpdateFC DLLPs for a configuration.
func DLLPIntervalBytes(gen, lanes, mps int) uint64 {
	g := min(gen, 3) - 1
	w := map[int]int{1: 0, 2: 1, 4: 2, 8: 3, 16: 4}[lanes]
	m := 0
	for v := 128; v < mps; v <<= 1 {
		m++
	}
	return dllpIntervals[g][w][m]
}

// dataCredits is the number of 16 B data credits a payload needs.
func dataCredits(payload uint64) uint64 {
	return (payload + creditBytesPerDat - 1) / creditBytesPerDat
}
