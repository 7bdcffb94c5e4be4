package pcie

// NFP6000ClockPeriodPS is the clock of the pcie-bench device, the Netronome
// NFP-6000 at 1.2 GHz (docs/sources.md 7): 833.3 ps, rounded to the whole
// picosecond the simulator's clocks need (1.2005 GHz, 0.04 % fast).
const NFP6000ClockPeriodPS = 833

// The NFP-6000's DMA engine in its own cycles, calibrated once from the two
// anchors of docs/sources.md 1.3: 62,536,210 reads/s and 47,399,443 writes/s
// at 64 B, where the engine, not PCIe, binds. With one channel per path
// (assumed: the measured rates are those of one engine queue), a 64 B
// request holds its channel RequestCycles cycles, so
// cycles = 1.2 GHz / rate: 1.2e9 / 62.54e6 = 19.2 -> 19 and
// 1.2e9 / 47.40e6 = 25.3 -> 25, rounded to whole cycles (the engine's
// rates: 63.2 M reads/s, +1.0 %, and 48.0 M writes/s, +1.3 %, at 833 ps).
// The reads do not reach the engine's rate: the 32 read tags hold them at
// 59.2 M/s, 5.2 % below the anchor (docs/DEVIATIONS.md, pcie-rd-bw-64).
const (
	nfpReadRequestCycles  = 19
	nfpWriteRequestCycles = 25
)

// DefaultSpec is a gen3 x8 link to an E5-class (Haswell/Broadwell) host,
// the host pcie-bench measured (docs/sources.md section 1), with the DMA
// engine of an RNIC clocked by the NIC clock (assumed values below; no RNIC
// publishes its DMA engine). NFP6000Spec is the same link and host with the
// engine of the pcie-bench device.
func DefaultSpec() Spec {
	s := Spec{
		Gen:    3,     // docs/sources.md 1: NFP-6000 on PCIe gen3 x8
		Lanes:  8,     // docs/sources.md 1
		ECRC:   false, // assumed: ECRC is rarely enabled; section 1.4 overheads exclude it
		Addr64: true,  // docs/sources.md 1.4 / 11: 24 B MWr/MRd overhead is the 64-bit form
		// Assumed: ~10 ns per direction for PHY pipelines and a short trace;
		// no public figure. Only the sum with
		// HostReadLatencyFixedNS is calibrated.
		LinkLatencyNS: 10,

		MPSBytes:        256,      // docs/sources.md 1.3: measured at MPS 256
		MRRSBytes:       512,      // assumed: common BIOS default
		RCBBytes:        64,       // docs/sources.md 11: RCB is 64 or 128 B; 64 assumed
		CompletionSplit: SplitMPS, // docs/sources.md 11: modern hosts complete in MPS-sized pieces
		// Assumed: PCIe 5-bit tags without Extended Tag Field. Check:
		// pcie-bench's 62 M reads/s at 64 B x 546 ns needs ~34 outstanding
		// (docs/sources.md 1.1, 1.3), so with 32 the tags bind 64 B reads
		// about 5 % below the NFP engine's rate (docs/DEVIATIONS.md).
		TagsMax: 32,

		// Assumed: typical root-port receive buffers (no public figure).
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

		// No gap between write-combined lines, assumed: no source gives the
		// rate at which the cores issue them. docs/sources.md 2's ~175 M
		// lines/s is Kalia et al.'s estimate of what a gen3 x16 link carries
		// (16 x 984.6 MB/s / 90 B per line), and the link's own model carries
		// each line as a 4DW MWr of 88 B: 179 M lines/s on gen3 x16, 89.5 M
		// on this x8 link. A gap taken from that estimate would charge the
		// link's rate a second time, to the host.
		MMIOIssueGapNS:   100, // docs/sources.md 2: UC MMIO TLPs leave 50-300 ns apart
		MMIOWCIssueGapNS: 0,   // assumed (above): the link binds write-combined lines
		MMIOQueueMax:     256, // assumed: bounded CPU store/WC buffer backlog

		// Assumed, an RNIC's engine at the NIC clock: HanGu has separate DMA
		// request channels for TX and RX descriptors and TX data (reads) and
		// for RX data and CQ writes (docs/sources.md 8), so 3 read and 2 write
		// channels, any of which serves any request here. 8 cycles per
		// request is the upper end of the NIC's 2-8 cycle stages
		// (docs/nic.md): at 1 GHz the write path then serves 250 M
		// requests/s, above ConnectX-6's 215 M messages/s (docs/sources.md 7).
		DMAReadChannels:    3,
		DMAWriteChannels:   2,
		ReadRequestCycles:  8,
		WriteRequestCycles: 8,
		ReadTLPsPerCycle:   1,  // assumed: one TLP header a cycle per channel
		WriteTLPsPerCycle:  1,  // assumed: one TLP header a cycle per channel
		DMAReadQueueDepth:  64, // assumed: a DMA command queue of 64 entries per path
		DMAWriteQueueDepth: 64, // assumed: a DMA command queue of 64 entries per path
		MSIXQueueMax:       64, // assumed: bounds the MSI-X writes pending in the DMA engine; a queue of 64, as the DMA command queues
	}
	e5Host(&s)
	return s
}

// NFP6000Spec is the pcie-bench configuration (docs/sources.md 1): the link
// and host of DefaultSpec with the DMA engine of the Netronome NFP-6000, to
// be clocked at NFP6000ClockPeriodPS. It is the device of DMA
// micro-benchmarks (`nicsim pcie`, the nfp6000-e5 preset), not an RNIC.
func NFP6000Spec() Spec {
	s := DefaultSpec()
	s.DMAReadChannels, s.DMAWriteChannels = 1, 1 // assumed: one engine queue per path
	s.ReadRequestCycles, s.WriteRequestCycles = nfpReadRequestCycles, nfpWriteRequestCycles
	return s
}

// e5Host sets the host memory of the E5-2620v3 host of docs/sources.md 1.1,
// 1.2.
func e5Host(s *Spec) {
	// Calibrated once, on NFP6000Spec, from one anchor: the 64 B read
	// median of 546 ns (docs/sources.md 1.1). The link model adds the NFP
	// engine's 19 cycles (15.827 ns), the MRd (24 B, 3.047 ns), the 84 B
	// CplD (10.664 ns) and 2 x LinkLatencyNS; the host's per-byte time
	// adds 64 x 0.29 = 18.56 ns. The rest is the host's median fixed part.
	s.HostReadLatencyFixedNS = 546 - 18.56 - 10.664 - 15.827 - 3.047 - 20
	// Calibrated once from docs/sources.md 1.1's 64 B and 2048 B medians:
	// slope (1133-546)/(2048-64) = 0.296 ns/B, taken as 0.29 with the
	// link's own serialisation counted apart. It is charged per MRd, so a
	// 2 KiB read (four MRds answered in parallel) no longer reproduces its
	// 1133 ns anchor (docs/DEVIATIONS.md, pcie).
	s.HostReadLatencyPerByteNS = 0.29
	// docs/sources.md 1.1, 64 B row: min 520, median 546, p99.9 586 ns.
	s.HostReadSpreadMinNS = 546 - 520
	s.HostReadSpreadP999NS = 586 - 546
	s.HostReadSpreadMaxNS = 586 - 546 // assumed: bounded at p99.9; no maximum is given for the E5 hosts
	s.HostLLCMissFraction = 0         // docs/sources.md 1.1: pcie-bench's buffers are host-warmed
	s.HostLLCMissNS = 600 - 546       // docs/sources.md 1.1: cold or thrashed buffer, 64 B reads
	s.HostRemoteNUMAFraction = 0      // docs/sources.md 1.1: device and memory on one socket
	s.HostRemoteNUMANS = 653 - 546    // docs/sources.md 1.1: memory on the remote socket, 64 B reads
	// Calibrated once from the write-then-read rows of docs/sources.md
	// 1.1 (LAT_DMA_WRRD, 8, 64 and 256 B: one MWr each): the delays that
	// reproduce them are 229.8, 212.4 and 215.2 ns, with no size
	// dependence, so their mean and no per-byte part
	// (TestWriteVisibilityCalibratedFromWRRD).
	s.HostWriteVisibleFixedNS = 219
	s.HostWriteVisiblePerByteNS = 0
	s.IOMMU = false         // docs/sources.md 1.1: pcie-bench's default runs have no IOMMU
	s.IOTLBEntries = 64     // docs/sources.md 1.2: no loss up to 256 KB = 64 x 4 KB, loss from 512 KB
	s.IOMMUPageBytes = 4096 // docs/sources.md 1.2: superpages disabled, 4 KB IOMMU pages
	s.IOMMUWalkNS = 220     // docs/sources.md 1.2: the miss step, 213-226 ns
	// docs/sources.md 1.2: at a 64 MB window almost every 64 B read misses
	// and the link carries 10.1 Gb/s, 19.7 M walks/s; x 220 ns = 4.3 walks
	// in flight.
	s.IOMMUWalkers = 4
}

// IdealSpec keeps base's link (generation, width, MPS, MRRS, RCB, split,
// ECRC, address width) and removes every limit that is not the link: no
// link or host latency or spread, no write visibility delay, no IOMMU, an
// engine with no request cycles and every channel it may have, unlimited
// tags and credits, and infinite host memory bandwidth. Its goodput is the
// byte-count model's.
func IdealSpec(base Spec) Spec {
	s := base
	s.LinkLatencyNS = 0
	s.TagsMax = TagsLimit
	s.HostPHCredits, s.HostPDCredits, s.HostNPHCredits, s.HostNPDCredits, s.HostCplHCredits, s.HostCplDCredits = 0, 0, 0, 0, 0, 0
	s.NICPHCredits, s.NICPDCredits, s.NICNPHCredits, s.NICNPDCredits, s.NICCplHCredits, s.NICCplDCredits = 0, 0, 0, 0, 0, 0
	s.HostReadLatencyFixedNS, s.HostReadLatencyPerByteNS = 0, 0
	s.HostReadSpreadMinNS, s.HostReadSpreadP999NS, s.HostReadSpreadMaxNS = 0, 0, 0
	s.HostLLCMissFraction, s.HostRemoteNUMAFraction = 0, 0
	s.HostWriteVisibleFixedNS, s.HostWriteVisiblePerByteNS = 0, 0
	s.IOMMU = false
	s.DMAReadChannels, s.DMAWriteChannels = ChannelsLimit, ChannelsLimit
	s.ReadRequestCycles, s.WriteRequestCycles = 0, 0
	s.ReadTLPsPerCycle, s.WriteTLPsPerCycle = TLPsPerCycleMax, TLPsPerCycleMax
	s.DMAReadQueueDepth = max(s.DMAReadQueueDepth, 1024)
	s.DMAWriteQueueDepth = max(s.DMAWriteQueueDepth, 1024)
	return s
}
