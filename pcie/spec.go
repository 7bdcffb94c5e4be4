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
	MMIOSourcesMax    = 1 << 16 // posting cores and driver threads of one host
	CreditsLimit      = 1 << 20
	LatencyNSMax      = 1e7 // 10 ms: anything larger is a unit mistake
	PerByteNSMax      = 1e3
	ChannelsLimit     = 1024
	RequestCyclesMax  = 1 << 20
	TLPsPerCycleMax   = 64
	IOTLBEntriesLimit = 1 << 16
	IOMMUWalkersLimit = 1024
	creditBytesPerDat = 16 // one data credit covers 4 DW (PCIe Base Spec 2.6.1)
)

// Spec configures one PCIe link between a host and the NIC, the host's
// root complex and memory as seen from the link, and the NIC's DMA engine.
// Every timing parameter has its unit last in its name; the DMA engine's
// are in cycles of the NIC clock that New is given. Defaults are in
// DefaultSpec and NFP6000Spec with their sources.
type Spec struct {
	// Link.
	Gen    int  `json:"gen"`    // PCIe generation 1..5
	Lanes  int  `json:"lanes"`  // link width: 1, 2, 4, 8 or 16
	ECRC   bool `json:"ecrc"`   // TLPs carry the 4 B end-to-end CRC digest
	Addr64 bool `json:"addr64"` // DMA to addresses at or above 4 GiB uses 4DW headers (64-bit), below them 3DW, as MSI-X; MMIO 4DW (a 64-bit BAR)
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

	// Host memory as DMA sees it (host.go, hostmem.go). A read's data
	// becomes ready per MRd: HostReadLatencyFixedNS (the median of a
	// bounded distribution: min HostReadSpreadMinNS below it, p99.9
	// HostReadSpreadP999NS above it, max HostReadSpreadMaxNS above it),
	// plus the LLC-miss and remote-NUMA additions drawn per MRd, then
	// HostReadLatencyPerByteNS per byte of the MRd.
	HostReadLatencyFixedNS   float64 `json:"host_read_latency_fixed_ns"`    // median, MRd arrival to first data ready
	HostReadLatencyPerByteNS float64 `json:"host_read_latency_per_byte_ns"` // data of one MRd streams at 1/this bytes per ns
	HostReadSpreadMinNS      float64 `json:"host_read_spread_min_ns"`       // the fastest read is this much below the median
	HostReadSpreadP999NS     float64 `json:"host_read_spread_p999_ns"`      // p99.9 is this much above the median
	HostReadSpreadMaxNS      float64 `json:"host_read_spread_max_ns"`       // the slowest read is this much above the median (>= p99.9)
	HostLLCMissFraction      float64 `json:"host_llc_miss_fraction"`        // share of MRds whose data is not in the last-level cache
	HostLLCMissNS            float64 `json:"host_llc_miss_ns"`              // added to an MRd that misses the LLC
	HostRemoteNUMAFraction   float64 `json:"host_remote_numa_fraction"`     // share of MRds served by the other socket's memory
	HostRemoteNUMANS         float64 `json:"host_remote_numa_ns"`           // added to an MRd served by the other socket
	// A posted write is visible to a polling CPU (and to later reads of the
	// same bytes) HostWriteVisibleFixedNS + HostWriteVisiblePerByteNS x
	// payload after its MWr arrives; writes become visible in order.
	HostWriteVisibleFixedNS   float64 `json:"host_write_visible_fixed_ns"`
	HostWriteVisiblePerByteNS float64 `json:"host_write_visible_per_byte_ns"`
	// Host IOMMU (off unless IOMMU): every DMA TLP's page is looked up in an
	// IOTLB of IOTLBEntries entries of IOMMUPageBytes (fully associative,
	// LRU); a miss waits for one of IOMMUWalkers page walkers for
	// IOMMUWalkNS.
	IOMMU          bool    `json:"iommu"`
	IOTLBEntries   int     `json:"iotlb_entries"`
	IOMMUPageBytes int     `json:"iommu_page_bytes"`
	IOMMUWalkNS    float64 `json:"iommu_walk_ns"`
	IOMMUWalkers   int     `json:"iommu_walkers"`

	// Host CPU's MMIO path.
	MMIOIssueGapNS   float64 `json:"mmio_issue_gap_ns"`    // CPU gap between uncached (<= 8 B) MMIO TLPs
	MMIOWCIssueGapNS float64 `json:"mmio_wc_issue_gap_ns"` // CPU gap between 64 B write-combined MMIO TLPs
	MMIOQueueMax     int     `json:"mmio_queue_max"`       // MMIO writes the CPU may have pending

	// NIC DMA engine (engine.go), in NIC clock cycles. Reads and writes
	// have separate paths: a bounded request queue and channels, each of
	// which works on one request at a time: RequestCycles before its first
	// TLP is ready, then TLPsPerCycle TLPs a cycle.
	DMAReadChannels    int    `json:"dma_read_channels"`
	DMAWriteChannels   int    `json:"dma_write_channels"`
	ReadRequestCycles  uint32 `json:"read_request_cycles"`
	WriteRequestCycles uint32 `json:"write_request_cycles"`
	ReadTLPsPerCycle   uint32 `json:"read_tlps_per_cycle"`
	WriteTLPsPerCycle  uint32 `json:"write_tlps_per_cycle"`
	DMAReadQueueDepth  int    `json:"dma_read_queue_depth"`  // read requests accepted and not yet fully sent as MRds
	DMAWriteQueueDepth int    `json:"dma_write_queue_depth"` // write requests accepted and not yet fully sent as MWrs
	MSIXQueueMax       int    `json:"msix_queue_max"`        // MSI-X writes pending
}

func powerOfTwoIn(v, lo, hi int) bool { return v >= lo && v <= hi && v&(v-1) == 0 }

func checkFloat(name string, v, hi float64) error {
	if math.IsNaN(v) || v < 0 || v > hi {
		return fmt.Errorf("pcie: %s = %v is out of range 0..%g", name, v, hi)
	}
	return nil
}

func checkInt(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("pcie: %s = %d is out of range %d..%d", name, v, lo, hi)
	}
	return nil
}

// Validate reports the first field out of range, naming it, its value and
// the allowed range.
func (s Spec) Validate() error {
	for _, check := range []func() error{s.validateLink, s.validateCredits, s.validateHost, s.validateEngine} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (s Spec) validateLink() error {
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
	if err := checkInt("TagsMax", s.TagsMax, 1, TagsLimit); err != nil {
		return err
	}
	return checkFloat("LinkLatencyNS", s.LinkLatencyNS, LatencyNSMax)
}

func (s Spec) validateCredits() error {
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
	return nil
}

func (s Spec) validateHost() error {
	for _, f := range []struct {
		name string
		v    float64
		hi   float64
	}{
		{"HostReadLatencyFixedNS", s.HostReadLatencyFixedNS, LatencyNSMax},
		{"HostReadLatencyPerByteNS", s.HostReadLatencyPerByteNS, PerByteNSMax},
		{"HostReadSpreadMinNS", s.HostReadSpreadMinNS, s.HostReadLatencyFixedNS},
		{"HostReadSpreadP999NS", s.HostReadSpreadP999NS, LatencyNSMax},
		{"HostReadSpreadMaxNS", s.HostReadSpreadMaxNS, LatencyNSMax},
		{"HostLLCMissFraction", s.HostLLCMissFraction, 1},
		{"HostLLCMissNS", s.HostLLCMissNS, LatencyNSMax},
		{"HostRemoteNUMAFraction", s.HostRemoteNUMAFraction, 1},
		{"HostRemoteNUMANS", s.HostRemoteNUMANS, LatencyNSMax},
		{"HostWriteVisibleFixedNS", s.HostWriteVisibleFixedNS, LatencyNSMax},
		{"HostWriteVisiblePerByteNS", s.HostWriteVisiblePerByteNS, PerByteNSMax},
		{"IOMMUWalkNS", s.IOMMUWalkNS, LatencyNSMax},
		{"MMIOIssueGapNS", s.MMIOIssueGapNS, LatencyNSMax},
		{"MMIOWCIssueGapNS", s.MMIOWCIssueGapNS, LatencyNSMax},
	} {
		if err := checkFloat(f.name, f.v, f.hi); err != nil {
			return err
		}
	}
	if s.HostReadSpreadMaxNS < s.HostReadSpreadP999NS {
		return fmt.Errorf("pcie: HostReadSpreadMaxNS = %v is below HostReadSpreadP999NS = %v", s.HostReadSpreadMaxNS, s.HostReadSpreadP999NS)
	}
	if err := checkInt("IOTLBEntries", s.IOTLBEntries, 1, IOTLBEntriesLimit); err != nil {
		return err
	}
	if !powerOfTwoIn(s.IOMMUPageBytes, 4096, 1<<30) {
		return fmt.Errorf("pcie: IOMMUPageBytes = %d must be a power of two in 4096..%d", s.IOMMUPageBytes, 1<<30)
	}
	if err := checkInt("IOMMUWalkers", s.IOMMUWalkers, 1, IOMMUWalkersLimit); err != nil {
		return err
	}
	return checkInt("MMIOQueueMax", s.MMIOQueueMax, 1, MMIOQueueLimit)
}

func (s Spec) validateEngine() error {
	for _, c := range []struct {
		name   string
		v      int
		lo, hi int
	}{
		{"DMAReadChannels", s.DMAReadChannels, 1, ChannelsLimit},
		{"DMAWriteChannels", s.DMAWriteChannels, 1, ChannelsLimit},
		{"ReadRequestCycles", int(s.ReadRequestCycles), 0, RequestCyclesMax},
		{"WriteRequestCycles", int(s.WriteRequestCycles), 0, RequestCyclesMax},
		{"ReadTLPsPerCycle", int(s.ReadTLPsPerCycle), 1, TLPsPerCycleMax},
		{"WriteTLPsPerCycle", int(s.WriteTLPsPerCycle), 1, TLPsPerCycleMax},
		{"DMAReadQueueDepth", s.DMAReadQueueDepth, 1, QueueDepthLimit},
		{"DMAWriteQueueDepth", s.DMAWriteQueueDepth, 1, QueueDepthLimit},
		{"MSIXQueueMax", s.MSIXQueueMax, 1, MMIOQueueLimit},
	} {
		if err := checkInt(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	return nil
}
