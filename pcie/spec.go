package pcie

import (
	"fmt"
	"math"
)

// Completion split modes (Spec.CompletionSplit).
const (
	SplitMPS = "mps" // completions as large as MPS allows, ending on RCB boundaries
	SplitRCB = "rcb" // one completion per RCB-aligned block (older chipsets)
)

// Limits on the values Validate accepts. Everything is bounded.
const (
	TagsLimit         = 1 << 16 // well above PCIe 14-bit tags (16384); IdealSpec uses it as "unlimited"
	QueueDepthLimit   = 1 << 16
	TransferBytesMax  = 1 << 30 // largest single DMA request (1 GiB)
	MMIOBytesMax      = 4096    // largest single MMIO write (one page of WC stores)
	MMIOQueueLimit    = 1 << 16
	CreditsLimit      = 1 << 20
	LatencyNSMax      = 1e7 // 10 ms: anything larger is a unit mistake
	PerByteNSMax      = 1e3
	IssueCostPSMax    = 1e9 // 1 ms per request
	creditBytesPerDat = 16  // one data credit covers 4 DW (PCIe Base Spec 2.6.1)
)

// Spec configures one PCIe link between a host and the NIC, the host's
// root complex and memory as seen from the link, and the NIC's DMA engine.
// Every timing parameter has its unit last in its name. Defaults are in
// DefaultSpec with their sources.
type Spec struct {
	// Link.
	Gen    int  `json:"gen"`    // PCIe generation 1..5
	Lanes  int  `json:"lanes"`  // link width: 1, 2, 4, 8 or 16
	ECRC   bool `json:"ecrc"`   // TLPs carry the 4 B end-to-end CRC digest
	Addr64 bool `json:"addr64"` // DMA addresses use 4DW headers (64-bit); MMIO/MSI-X below 4 GiB use 3DW
	// LinkLatencyNS is the one-way delay from the last byte leaving a
	// transmitter to the TLP being usable at the receiver (PHY pipelines at
	// both ends plus propagation), on top of serialisation.
	LinkLatencyNS float64 `json:"link_latency_ns"`

	// Transactions.
	MPSBytes        int    `json:"mps_bytes"`        // Max_Payload_Size: 128..4096, power of two
	MRRSBytes       int    `json:"mrrs_bytes"`       // Max_Read_Request_Size: 128..4096, power of two
	RCBBytes        int    `json:"rcb_bytes"`        // read completion boundary: 64 or 128
	CompletionSplit string `json:"completion_split"` // "mps" or "rcb"
	TagsMax         int    `json:"tags_max"`         // outstanding MRd TLPs the NIC may have (1..65536)

	// Flow-control credits advertised by each receiver. 0 means infinite
	// (as an advertisement of 0 does in PCIe, Base Spec 3.4). Header
	// credits count TLPs, data credits count 16 B units.
	HostPHCredits   int `json:"host_ph_credits"`   // root port, posted headers (NIC MWr, MSI-X)
	HostPDCredits   int `json:"host_pd_credits"`   // root port, posted data
	HostNPHCredits  int `json:"host_nph_credits"`  // root port, non-posted headers (NIC MRd)
	HostNPDCredits  int `json:"host_npd_credits"`  // root port, non-posted data (unused by MRd)
	HostCplHCredits int `json:"host_cplh_credits"` // root port, completion headers (unused: the host does not read the NIC)
	HostCplDCredits int `json:"host_cpld_credits"` // root port, completion data
	NICPHCredits    int `json:"nic_ph_credits"`    // NIC, posted headers (MMIO writes)
	NICPDCredits    int `json:"nic_pd_credits"`    // NIC, posted data
	NICNPHCredits   int `json:"nic_nph_credits"`   // NIC, non-posted headers (unused)
	NICNPDCredits   int `json:"nic_npd_credits"`   // NIC, non-posted data (unused)
	NICCplHCredits  int `json:"nic_cplh_credits"`  // NIC, completion headers (CplD of DMA reads)
	NICCplDCredits  int `json:"nic_cpld_credits"`  // NIC, completion data

	// Host.
	HostReadLatencyFixedNS   float64 `json:"host_read_latency_fixed_ns"`    // MRd arrival to first data ready, per MRd
	HostReadLatencyPerByteNS float64 `json:"host_read_latency_per_byte_ns"` // data of one MRd streams at 1/this bytes per ns
	MMIOIssueGapNS           float64 `json:"mmio_issue_gap_ns"`             // CPU gap between uncached (<= 8 B) MMIO TLPs
	MMIOWCIssueGapNS         float64 `json:"mmio_wc_issue_gap_ns"`          // CPU gap between 64 B write-combined MMIO TLPs
	MMIOQueueMax             int     `json:"mmio_queue_max"`                // MMIO writes the CPU may have pending

	// NIC DMA engine.
	ReadIssueCostPS  uint64 `json:"read_issue_cost_ps"`  // engine time per read request
	WriteIssueCostPS uint64 `json:"write_issue_cost_ps"` // engine time per write request
	QueueDepth       int    `json:"queue_depth"`         // requests accepted but not yet fully sent as TLPs
	MSIXQueueMax     int    `json:"msix_queue_max"`      // MSI-X writes pending
}

// DefaultSpec is a gen3 x8 link to an E5-class (Haswell/Broadwell) host,
// the configuration pcie-bench measured (docs/sources.md section 1).
func DefaultSpec() Spec {
	return Spec{
		Gen:    3,     // docs/sources.md 1: NFP-6000 on PCIe gen3 x8
		Lanes:  8,     // docs/sources.md 1
		ECRC:   false, // assumed: ECRC is rarely enabled; section 1.4 overheads exclude it
		Addr64: true,  // docs/sources.md 1.4 / 11: 24 B MWr/MRd overhead is the 64-bit form
		// Assumed: ~10 ns per direction for PHY pipelines and a short trace;
		// no public figure (docs/sources.md 10). Only the sum with
		// HostReadLatencyFixedNS is calibrated.
		LinkLatencyNS: 10,

		MPSBytes:        256,      // docs/sources.md 1.3: measured at MPS 256
		MRRSBytes:       512,      // assumed: common BIOS default; the issue's reference configuration
		RCBBytes:        64,       // docs/sources.md 11: RCB is 64 or 128 B; root ports use 64
		CompletionSplit: SplitMPS, // docs/sources.md 11: modern hosts complete in MPS-sized pieces
		// Assumed: PCIe 5-bit tags without Extended Tag Field. Check:
		// pcie-bench's 62 M reads/s at 64 B x 546 ns needs ~34 outstanding
		// (docs/sources.md 1.1, 1.3), consistent with 32.
		TagsMax: 32,

		// Assumed: typical root-port receive buffers (no public figure,
		// docs/sources.md 10).
		HostPHCredits:   64,   // 64 posted headers
		HostPDCredits:   1024, // 16 KiB of posted data
		HostNPHCredits:  32,   // matches TagsMax so tags, not NPH, limit reads
		HostNPDCredits:  0,    // infinite: MRd carries no data
		HostCplHCredits: 0,    // infinite: root ports advertise infinite completion credits
		HostCplDCredits: 0,
		NICPHCredits:    32,  // assumed: a doorbell/WQE buffer of 32 TLPs
		NICPDCredits:    128, // assumed: 2 KiB of MMIO write data (32 x 64 B)
		NICNPHCredits:   8,   // assumed: small; the host does not read the NIC here
		NICNPDCredits:   8,
		NICCplHCredits:  0, // infinite: endpoints must advertise infinite completion credits (PCIe Base Spec 2.6.1)
		NICCplDCredits:  0,

		// docs/sources.md 1.1: the E5 round trip fits ~525 ns + ~0.30 ns/B. The
		// link model adds issue cost, serialisation and 2 x LinkLatencyNS
		// itself, so the host's fixed part is what is left: with these
		// defaults a 64 B read takes 546 ns (the measured median) and the
		// 256..2048 B points fall within 1.2 % of table 1.1.
		HostReadLatencyFixedNS:   516.8 - 16.129 - 3.047 - 20,
		HostReadLatencyPerByteNS: 0.29, // docs/sources.md 1.1 slope, fitted with the link's own serialisation
		MMIOIssueGapNS:           100,  // docs/sources.md 2: UC MMIO TLPs leave 50-300 ns apart
		MMIOWCIssueGapNS:         5.7,  // docs/sources.md 9: ~175 M WC lines/s ceiling
		MMIOQueueMax:             256,  // assumed: bounded CPU store/WC buffer backlog

		ReadIssueCostPS:  16129, // docs/sources.md 1.3: ~62 M reads/s at 64 B on the NFP engine
		WriteIssueCostPS: 21277, // docs/sources.md 1.3: ~47 M writes/s at 64 B
		QueueDepth:       64,    // assumed: a DMA command queue of 64 entries
		MSIXQueueMax:     64,    // assumed
	}
}

// IdealSpec keeps base's link (generation, width, MPS, MRRS, RCB, split,
// ECRC, address width) and removes every limit that is not the link: no
// link or host latency, no engine issue cost, unlimited tags and credits,
// and infinite host memory bandwidth. Its goodput is the byte-count model's.
func IdealSpec(base Spec) Spec {
	s := base
	s.LinkLatencyNS = 0
	s.TagsMax = TagsLimit
	s.HostPHCredits, s.HostPDCredits, s.HostNPHCredits, s.HostNPDCredits, s.HostCplHCredits, s.HostCplDCredits = 0, 0, 0, 0, 0, 0
	s.NICPHCredits, s.NICPDCredits, s.NICNPHCredits, s.NICNPDCredits, s.NICCplHCredits, s.NICCplDCredits = 0, 0, 0, 0, 0, 0
	s.HostReadLatencyFixedNS = 0
	s.HostReadLatencyPerByteNS = 0
	s.ReadIssueCostPS = 0
	s.WriteIssueCostPS = 0
	if s.QueueDepth < 1024 {
		s.QueueDepth = 1024
	}
	return s
}

func powerOfTwoIn(v, lo, hi int) bool { return v >= lo && v <= hi && v&(v-1) == 0 }

func checkFloat(name string, v, hi float64) error {
	if math.IsNaN(v) || v < 0 || v > hi {
		return fmt.Errorf("pcie: %s = %v is out of range 0..%g", name, v, hi)
	}
	return nil
}

// Validate reports the first field out of range, naming it, its value and
// the allowed range.
func (s Spec) Validate() error {
	if s.Gen < 1 || s.Gen > 5 {
		return fmt.Errorf("pcie: Gen = %d is out of range 1..5", s.Gen)
	}
	switch s.Lanes {
	case 1, 2, 4, 8, 16:
	default:
		return fmt.Errorf("pcie: Lanes = %d must be one of 1, 2, 4, 8, 16", s.Lanes)
	}
	if !powerOfTwoIn(s.MPSBytes, 128, 4096) {
		return fmt.Errorf("pcie: MPSBytes = %d must be a power of two in 128..4096", s.MPSBytes)
	}
	if !powerOfTwoIn(s.MRRSBytes, 128, 4096) {
		return fmt.Errorf("pcie: MRRSBytes = %d must be a power of two in 128..4096", s.MRRSBytes)
	}
	if s.RCBBytes != 64 && s.RCBBytes != 128 {
		return fmt.Errorf("pcie: RCBBytes = %d must be 64 or 128", s.RCBBytes)
	}
	if s.CompletionSplit != SplitMPS && s.CompletionSplit != SplitRCB {
		return fmt.Errorf("pcie: CompletionSplit = %q must be %q or %q", s.CompletionSplit, SplitMPS, SplitRCB)
	}
	if s.TagsMax < 1 || s.TagsMax > TagsLimit {
		return fmt.Errorf("pcie: TagsMax = %d is out of range 1..%d", s.TagsMax, TagsLimit)
	}
	if s.QueueDepth < 1 || s.QueueDepth > QueueDepthLimit {
		return fmt.Errorf("pcie: QueueDepth = %d is out of range 1..%d", s.QueueDepth, QueueDepthLimit)
	}
	if s.MMIOQueueMax < 1 || s.MMIOQueueMax > MMIOQueueLimit {
		return fmt.Errorf("pcie: MMIOQueueMax = %d is out of range 1..%d", s.MMIOQueueMax, MMIOQueueLimit)
	}
	if s.MSIXQueueMax < 1 || s.MSIXQueueMax > MMIOQueueLimit {
		return fmt.Errorf("pcie: MSIXQueueMax = %d is out of range 1..%d", s.MSIXQueueMax, MMIOQueueLimit)
	}
	credits := []struct {
		name string
		v    int
	}{
		{"HostPHCredits", s.HostPHCredits}, {"HostPDCredits", s.HostPDCredits},
		{"HostNPHCredits", s.HostNPHCredits}, {"HostNPDCredits", s.HostNPDCredits},
		{"HostCplHCredits", s.HostCplHCredits}, {"HostCplDCredits", s.HostCplDCredits},
		{"NICPHCredits", s.NICPHCredits}, {"NICPDCredits", s.NICPDCredits},
		{"NICNPHCredits", s.NICNPHCredits}, {"NICNPDCredits", s.NICNPDCredits},
		{"NICCplHCredits", s.NICCplHCredits}, {"NICCplDCredits", s.NICCplDCredits},
	}
	for _, c := range credits {
		if c.v < 0 || c.v > CreditsLimit {
			return fmt.Errorf("pcie: %s = %d is out of range 0..%d (0 = infinite)", c.name, c.v, CreditsLimit)
		}
	}
	// A receiver must be able to take the largest TLP it can be sent
	// (PCIe Base Spec 3.4: advertised data credits cover Max_Payload_Size).
	mpsCred := s.MPSBytes / creditBytesPerDat
	for _, c := range []struct {
		name string
		v    int
		need int
	}{
		{"HostPDCredits", s.HostPDCredits, mpsCred},
		{"HostCplDCredits", s.HostCplDCredits, mpsCred},
		{"NICPDCredits", s.NICPDCredits, MMIOLineBytes / creditBytesPerDat},
		{"NICCplDCredits", s.NICCplDCredits, mpsCred},
	} {
		if c.v != 0 && c.v < c.need {
			return fmt.Errorf("pcie: %s = %d is below %d, the data credits of one maximum-size TLP (0 = infinite)", c.name, c.v, c.need)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
		hi   float64
	}{
		{"LinkLatencyNS", s.LinkLatencyNS, LatencyNSMax},
		{"HostReadLatencyFixedNS", s.HostReadLatencyFixedNS, LatencyNSMax},
		{"HostReadLatencyPerByteNS", s.HostReadLatencyPerByteNS, PerByteNSMax},
		{"MMIOIssueGapNS", s.MMIOIssueGapNS, LatencyNSMax},
		{"MMIOWCIssueGapNS", s.MMIOWCIssueGapNS, LatencyNSMax},
	} {
		if err := checkFloat(f.name, f.v, f.hi); err != nil {
			return err
		}
	}
	if s.ReadIssueCostPS > IssueCostPSMax {
		return fmt.Errorf("pcie: ReadIssueCostPS = %d is out of range 0..%d", s.ReadIssueCostPS, uint64(IssueCostPSMax))
	}
	if s.WriteIssueCostPS > IssueCostPSMax {
		return fmt.Errorf("pcie: WriteIssueCostPS = %d is out of range 0..%d", s.WriteIssueCostPS, uint64(IssueCostPSMax))
	}
	return nil
}
