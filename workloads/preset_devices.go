package workloads

import (
	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
)

// The presets: generic, the default, and one per device with published
// measurements. A device preset starts from generic, sets what its source
// says about the device and its host, and is calibrated once from a few
// anchor figures of that source; docs/VALIDATION.md marks the rows used to
// calibrate ("calibration") and compares every other figure as a
// prediction. Every value that differs from generic's cites its source
// here (TestPresetValuesThatDifferFromTheBaseCiteTheirOwn).

// DefaultPreset is used when a file names none.
const DefaultPreset = "generic"

// presets is the table `nicsim presets` prints, in this order.
var presets = []Preset{
	{
		Name: "generic",
		Summary: "a plausible mid-range RNIC, not one device: PCIe gen3 x8 to an E5-class host (docs/sources.md 1.1), " +
			"a 1 GHz pipeline of assumed stages, a 100 Gb/s RoCEv2 port; the packages' default specs",
		Adapter: baseAdapter("generic"),
		Sources: append(append(append([]ValueSource(nil), genericSpecSources...), nicSources...), wireSources...),
	},
	{
		Name: "connect-ib",
		Summary: "a Connect-IB on PCIe 3.0 x16 with the Intel host of Kalia et al. (ATC'16, docs/sources.md 2, 1.4), " +
			"two 56 Gb/s InfiniBand ports as one wire; clock calibrated from the paper's NIC-bound outbound READ rate",
		Adapter: connectIB(),
		Base:    "generic",
		Sources: connectIBSources,
	},
	{
		Name: "connectx-5",
		Summary: "a ConnectX-5 on PCIe 3.0 x16 (the mlx5 fast-register figures, docs/sources.md 5), a 100 Gb/s port; " +
			"host read latency calibrated from the DMA-fetched FastRegister rate",
		Adapter: connectX5(),
		Base:    "generic",
		Sources: connectX5Sources,
	},
	{
		Name: "connectx-6-dx",
		Summary: "a ConnectX-6 Dx on PCIe 4.0 x16 (docs/sources.md 7): the reported 1 GHz clock, a 200 Gb/s port; " +
			"responder rate calibrated from the ConnectX-6 message rate; host latency of the E5 host (no gen4 host in docs/sources.md)",
		Adapter: connectX6Dx(),
		Base:    "generic",
		Sources: connectX6DxSources,
	},
	{
		Name: "nfp6000-e5",
		Summary: "the pcie-bench configuration: a Netronome NFP-6000 at 1.2 GHz on PCIe gen3 x8 to an E5-2620v3 host " +
			"(docs/sources.md 1, 7), the device of DMA micro-benchmarks (nicsim pcie, pcie-dma.yaml), not an RNIC",
		Adapter: nfp6000E5(),
		Base:    "generic",
		Sources: []ValueSource{
			{"pcie.dma_read_channels", "assumed: one engine queue per path; the rates of docs/sources.md 1.3 are one engine's"},
			{"pcie.dma_write_channels", "assumed: one engine queue per path; the rates of docs/sources.md 1.3 are one engine's"},
			{"pcie.read_request_cycles", "calibrated once from docs/sources.md 1.3: 62.5 M reads/s at 64 B at 1.2 GHz, 1.2e9 / 62.54e6 = 19.2 -> 19 cycles (63.2 M/s)"},
			{"pcie.write_request_cycles", "calibrated once from docs/sources.md 1.3: 47.4 M writes/s at 64 B at 1.2 GHz, 1.2e9 / 47.40e6 = 25.3 -> 25 cycles (48.0 M/s)"},
			{"nic.clock_period_ps", nfpClock},
			{"mtt.clock_period_ps", nfpClock},
		},
	},
}

// baseAdapter is the generic preset's values under name.
func baseAdapter(name string) Adapter {
	return Adapter{Preset: name, PCIe: pcie.DefaultSpec(), MTT: mtt.DefaultSpec(), NIC: nic.DefaultSpec(), Wire: nic.DefaultWireSpec()}
}

// x16Tags gives a gen3/gen4 x16 device 256 read tags (and the host as many
// non-posted header credits): 32 would bind small DMA reads on a x16 link.
func x16Tags(a *Adapter) {
	a.PCIe.TagsMax = 256
	a.PCIe.HostNPHCredits = 256
}

const x16TagsSource = "assumed: 8-bit extended tags (256); the generic 32 cap small reads at 32 per round trip (~58 M/s), below an x16 RNIC's rates"

// setClock sets the NIC's one clock (the pipeline's and the TPT's).
func setClock(a *Adapter, periodPS uint64) {
	a.NIC.ClockPeriodPS, a.MTT.ClockPeriodPS = periodPS, periodPS
}

// Connect-IB with the host of Kalia et al. (docs/sources.md 2).
const (
	// connectIBClockPS is calibrated once from docs/sources.md 2: outbound
	// 32 B RDMA Reads run at 88 Mops, bound by the NIC. At 1 GHz the
	// model's NIC is not the bound (the link and wire are, ~98.7 Mops);
	// slower, its DMA write channels bind at a rate that scales with the
	// clock: 83.34 Mops at 1500 ps (workloads/validation/kalia-outbound.yaml
	// with the clock swept), so 83.34 x 1500 / 88 = 1420 ps.
	connectIBClockPS = 1420
	connectIBClock   = "calibrated once from docs/sources.md 2: outbound READs run at 88 Mops, NIC bound; the model's DMA write channels bind at 125,000 / period_ps Mops, so 1420 ps (704 MHz)"
)

func connectIB() Adapter {
	a := baseAdapter("connect-ib")
	a.PCIe.Gen, a.PCIe.Lanes = 3, 16
	a.PCIe.CompletionSplit, a.PCIe.RCBBytes = pcie.SplitRCB, 128
	x16Tags(&a)
	setClock(&a, connectIBClockPS)
	a.Wire.GbitPerS = 112
	a.Wire.HeaderBytes = 26
	a.Wire.FramingBytes = 2
	return a
}

var connectIBSources = []ValueSource{
	{"pcie.gen", "docs/sources.md 2: Connect-IB is PCIe 3.0 x16"},
	{"pcie.lanes", "docs/sources.md 2: Connect-IB is PCIe 3.0 x16"},
	{"pcie.completion_split", "docs/sources.md 1.4: Kalia's Intel hosts complete reads in 128 B pieces"},
	{"pcie.rcb_bytes", "docs/sources.md 1.4: read-completion combining size 128 B on Kalia's Intel hosts"},
	{"pcie.tags_max", x16TagsSource},
	{"pcie.host_nph_credits", "assumed: matches tags_max so tags, not NPH credits, limit reads"},
	{"nic.clock_period_ps", connectIBClock},
	{"mtt.clock_period_ps", connectIBClock},
	{"wire.gbit_per_s", "docs/sources.md 2: two 56 Gb/s InfiniBand ports, 112 Gb/s, which the paper's experiments use together; the model's one wire carries both (FDR's 64b/66b code is not deducted)"},
	{"wire.header_bytes", "assumed: InfiniBand LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B (IBTA vol. 1), no Ethernet, IP or UDP headers; RETH/AETH/IETH added per packet type"},
	{"wire.framing_bytes", "assumed: 2 B of start and end delimiters per packet"},
}

// ConnectX-5 of the mlx5 fast-register measurement (docs/sources.md 5).
const (
	// connectX5HostReadExtraNS is calibrated once from docs/sources.md 5:
	// with the page list fetched by DMA the adapter saturates at 1.3 M
	// registrations/s. The model's engine waits for one page-list read
	// per registration (its fetch slot is the bound), so the rate is one
	// over the read's round trip: 1.30 M/s needs 769 ns, 257 ns more than
	// the model's unloaded 8 B read with the E5 host on this x16 link
	// (about 512 ns). The measurement's host is not described, so its
	// memory latency is what the anchor sets; whatever else the measured
	// adapter did per I/O (docs/DEVIATIONS.md) is folded into it.
	connectX5HostReadExtraNS = 257
	connectX5HostRead        = "calibrated once from docs/sources.md 5: DMA-fetched FastRegister saturates at 1.3 M/s, one dependent 8 B page-list read per registration, so a ~769 ns round trip: the E5 host's fixed latency + 257 ns, over the model's ~512 ns unloaded 8 B read on x16 (the measurement's host is not described)"
)

func connectX5() Adapter {
	a := baseAdapter("connectx-5")
	a.PCIe.Gen, a.PCIe.Lanes = 3, 16
	x16Tags(&a)
	a.PCIe.HostReadLatencyFixedNS += connectX5HostReadExtraNS
	return a
}

var connectX5Sources = []ValueSource{
	{"pcie.gen", "docs/sources.md 5: ConnectX-5 x16; PCIe 3.0 assumed (the commit names the width only)"},
	{"pcie.lanes", "docs/sources.md 5: ConnectX-5 x16"},
	{"pcie.tags_max", x16TagsSource},
	{"pcie.host_nph_credits", "assumed: matches tags_max so tags, not NPH credits, limit reads"},
	{"pcie.host_read_latency_fixed_ns", connectX5HostRead},
}

// ConnectX-6 Dx (docs/sources.md 7).
const (
	// connectX6DxResponderIntervalCycles is calibrated once from
	// docs/sources.md 7: ConnectX-6 moves up to 215 M messages/s. The
	// model's responder serves one packet per interval at the reported
	// 1 GHz clock; 1e9 / 215e6 = 4.65 cycles, so 5 (200 M packets/s).
	connectX6DxResponderIntervalCycles = 5
	connectX6DxResponder               = "calibrated once from docs/sources.md 7: up to 215 M messages/s; one packet per interval at 1 GHz, 1e9 / 215e6 = 4.65 -> 5 cycles (200 M/s)"
	connectX6DxClock                   = "docs/sources.md 7: ConnectX-6 Dx reports hca_core_clock 1000 MHz, taken as the pipeline clock (assumed: it is the timestamp counter's)"
)

func connectX6Dx() Adapter {
	a := baseAdapter("connectx-6-dx")
	a.PCIe.Gen, a.PCIe.Lanes = 4, 16
	x16Tags(&a)
	a.PCIe.DMAReadQueueDepth, a.PCIe.DMAWriteQueueDepth = 256, 256
	setClock(&a, 1000)
	a.NIC.Responder.IntervalCycles = connectX6DxResponderIntervalCycles
	a.Wire.GbitPerS = 200
	return a
}

var connectX6DxSources = func() []ValueSource {
	src := []ValueSource{
		{"pcie.gen", "docs/sources.md 7: ConnectX-6 is PCIe gen4 x16 [V]"},
		{"pcie.lanes", "docs/sources.md 7: ConnectX-6 is PCIe gen4 x16 [V]"},
		{"pcie.tags_max", "assumed: PCIe 4.0 10-bit tags allow 768; 256 keeps reads link-bound on gen4 x16 (docs/pcie.md: 32 tags cap reads at 194 Gb/s)"},
		{"pcie.host_nph_credits", "assumed: matches tags_max so tags, not NPH credits, limit reads"},
		{"pcie.dma_read_queue_depth", "assumed: a DMA command queue of 256 entries per path for a 4x faster link"},
		{"pcie.dma_write_queue_depth", "assumed: a DMA command queue of 256 entries per path for a 4x faster link"},
		{"pcie.host_read_latency_fixed_ns", "assumed: the E5 host's (docs/sources.md 1.1); no gen4 host latency in docs/sources.md"},
		{"pcie.host_read_latency_per_byte_ns", "assumed: the E5 host's slope (docs/sources.md 1.1); no gen4 host figure"},
		{"nic.clock_period_ps", connectX6DxClock},
		{"mtt.clock_period_ps", connectX6DxClock},
		{"nic.responder.interval_cycles", connectX6DxResponder},
		{"wire.gbit_per_s", "docs/sources.md 7: ConnectX-6 Dx cards have ports of up to 200 GbE [V]"},
	}
	return src
}()

// nfp6000E5 is the pcie-bench configuration: the NFP-6000's DMA engine
// (pcie.NFP6000Spec) clocked at 1.2 GHz, on the E5 host.
func nfp6000E5() Adapter {
	a := baseAdapter("nfp6000-e5")
	a.PCIe = pcie.NFP6000Spec()
	setClock(&a, pcie.NFP6000ClockPeriodPS)
	return a
}

// nfpClock is the source of the NFP-6000 preset's clock.
const nfpClock = "docs/sources.md 7: the NFP-6000 runs at 1.2 GHz; 833 ps is the nearest whole picosecond (0.04 % fast)"
