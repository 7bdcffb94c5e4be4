package workloads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
)

// Adapter is the model configuration of a run: a named preset plus
// overrides of any model parameter, one section per model package, keyed
// by the spec's JSON field names. Adding a model is one field here, its
// values in each preset, and a rule table in modelRules.
//
// The NIC's translation unit is the `mtt` section: nic.Spec.TPT is not a key
// of its own (modelSkip) and is set from MTT after decoding (syncTPT), so
// one table configures the TPT whether or not the NIC runs operations.
type Adapter struct {
	Preset string    `yaml:"preset" json:"preset"`
	PCIe   pcie.Spec `yaml:"pcie" json:"pcie"`
	MTT    mtt.Spec  `yaml:"mtt" json:"mtt"`
	NIC    nic.Spec  `yaml:"nic" json:"nic"`
	// Wire joins host a to host b when a generator is a remote kind.
	Wire nic.WireSpec `yaml:"wire" json:"wire"`
}

// MarshalJSON writes the adapter as a file holds it: the nic section
// without its tpt (which is the mtt section), so a resolved config.json
// point loads back as a workload. Field order is kept.
func (a Adapter) MarshalJSON() ([]byte, error) {
	nb, err := json.Marshal(a.NIC)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(nb))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var nicJSON bytes.Buffer
	nicJSON.WriteByte('{')
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if k == "tpt" {
			continue
		}
		if nicJSON.Len() > 1 {
			nicJSON.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		nicJSON.Write(kb)
		nicJSON.WriteByte(':')
		nicJSON.Write(v)
	}
	nicJSON.WriteByte('}')
	return json.Marshal(struct {
		Preset string          `json:"preset"`
		PCIe   pcie.Spec       `json:"pcie"`
		MTT    mtt.Spec        `json:"mtt"`
		NIC    json.RawMessage `json:"nic"`
		Wire   nic.WireSpec    `json:"wire"`
	}{a.Preset, a.PCIe, a.MTT, nicJSON.Bytes(), a.Wire})
}

// syncTPT makes the NIC's TPT the `mtt` section.
func (a *Adapter) syncTPT() { a.NIC.TPT = a.MTT }

// modelSkip lists model spec fields a file cannot set: nic.Spec.TPT is the
// `mtt` section.
var modelSkip = map[reflect.Type]string{reflect.TypeFor[nic.Spec](): "tpt"}

// ValueSource says where one preset value comes from: a docs/sources.md section, or
// "assumed: <why>".
type ValueSource struct {
	Key    string // dotted key below adapter, such as pcie.tags_max
	Source string
}

// Preset is a named adapter configuration with the source of every value.
type Preset struct {
	Name    string
	Summary string
	Adapter Adapter
	// Sources holds the source of each key that differs from, or has a
	// different reason than, the base preset; other keys take the base's.
	Sources []ValueSource
	Base    string // preset whose sources fill the rest ("" for the base itself)
}

// DefaultPreset is used when a file names none.
const DefaultPreset = "e5-gen3x8"

// presets is the table `nicsim presets` prints, in this order.
var presets = []Preset{
	{
		Name:    "e5-gen3x8",
		Summary: "the pcie-bench host: PCIe gen3 x8 to an E5-class Xeon (docs/sources.md 1); pcie.DefaultSpec + mtt.DefaultSpec",
		Adapter: Adapter{Preset: "e5-gen3x8", PCIe: pcie.DefaultSpec(), MTT: mtt.DefaultSpec(), NIC: nic.DefaultSpec(), Wire: nic.DefaultWireSpec()},
		Sources: append(append(append([]ValueSource(nil), e5Sources...), nicSources...), wireSources...),
	},
	{
		Name: "gen4x16",
		Summary: "a ConnectX-6-class NIC on PCIe gen4 x16 (docs/sources.md 7); link, tags and DMA rate assumed, " +
			"host latency of the E5 host (no gen4 host is measured in docs/sources.md)",
		Adapter: gen4x16(),
		Base:    "e5-gen3x8",
		Sources: []ValueSource{
			{"pcie.gen", "docs/sources.md 7: ConnectX-6 is PCIe gen4 x16 [V]"},
			{"pcie.lanes", "docs/sources.md 7: ConnectX-6 is PCIe gen4 x16 [V]"},
			{"pcie.tags_max", "assumed: PCIe 4.0 10-bit tags allow 768; 256 keeps reads link-bound on gen4 x16 (docs/pcie.md: 32 tags cap reads at 194 Gb/s)"},
			{"pcie.host_nph_credits", "assumed: matches tags_max so tags, not NPH credits, limit reads"},
			{"pcie.dma_read_queue_depth", "assumed: a DMA command queue of 256 entries per path for a 4x faster link"},
			{"pcie.dma_write_queue_depth", "assumed: a DMA command queue of 256 entries per path for a 4x faster link"},
			{"pcie.host_read_latency_fixed_ns", "assumed: the E5 host's fit (docs/sources.md 1.1); no gen4 host latency in docs/sources.md"},
			{"pcie.host_read_latency_per_byte_ns", "assumed: the E5 host's slope (docs/sources.md 1.1); no gen4 host figure"},
		},
	},
	{
		Name: "nfp6000-e5",
		Summary: "the pcie-bench configuration: a Netronome NFP-6000 at 1.2 GHz on PCIe gen3 x8 to an E5-2620v3 host " +
			"(docs/sources.md 1, 7), the device of DMA micro-benchmarks (nicsim pcie, pcie-dma.yaml), not an RNIC",
		Adapter: nfp6000E5(),
		Base:    "e5-gen3x8",
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

func gen4x16() Adapter {
	a := Adapter{Preset: "gen4x16", PCIe: pcie.DefaultSpec(), MTT: mtt.DefaultSpec(), NIC: nic.DefaultSpec(), Wire: nic.DefaultWireSpec()}
	a.PCIe.Gen, a.PCIe.Lanes = 4, 16
	a.PCIe.TagsMax = 256
	a.PCIe.HostNPHCredits = 256
	a.PCIe.DMAReadQueueDepth, a.PCIe.DMAWriteQueueDepth = 256, 256
	return a
}

// nfp6000E5 is the pcie-bench configuration: the NFP-6000's DMA engine
// (pcie.NFP6000Spec) clocked at 1.2 GHz, on the E5 host.
func nfp6000E5() Adapter {
	a := Adapter{Preset: "nfp6000-e5", PCIe: pcie.NFP6000Spec(), MTT: mtt.DefaultSpec(), NIC: nic.DefaultSpec(), Wire: nic.DefaultWireSpec()}
	a.NIC.ClockPeriodPS, a.MTT.ClockPeriodPS = pcie.NFP6000ClockPeriodPS, pcie.NFP6000ClockPeriodPS
	return a
}

// nfpClock is the source of the NFP-6000 preset's clock.
const nfpClock = "docs/sources.md 7: the NFP-6000 runs at 1.2 GHz; 833 ps is the nearest whole picosecond (0.04 % fast)"

// e5Sources gives the source of every value of pcie.DefaultSpec and
// mtt.DefaultSpec, from the comments in pcie/spec.go and mtt/spec.go and
// from docs/pcie.md and docs/mtt.md.
var e5Sources = []ValueSource{
	{"pcie.gen", "docs/sources.md 1: NFP-6000 on PCIe gen3 x8"},
	{"pcie.lanes", "docs/sources.md 1"},
	{"pcie.ecrc", "assumed: ECRC is rarely enabled; section 1.4 overheads exclude it"},
	{"pcie.addr64", "docs/sources.md 1.4 / 11: 24 B MWr/MRd overhead is the 64-bit form"},
	{"pcie.link_latency_ns", "assumed: ~10 ns per direction for PHY pipelines and a short trace (docs/sources.md 10); only its sum with the host fixed latency is calibrated"},
	{"pcie.mps_bytes", "docs/sources.md 1.3: measured at MPS 256"},
	{"pcie.mrrs_bytes", "assumed: common BIOS default"},
	{"pcie.rcb_bytes", "docs/sources.md 11: root ports use 64"},
	{"pcie.completion_split", "docs/sources.md 11: modern hosts complete in MPS-sized pieces"},
	{"pcie.tags_max", "assumed: 5-bit tags; 62 M reads/s x 546 ns needs ~34 outstanding (docs/sources.md 1.1, 1.3)"},
	{"pcie.host_ph_credits", "assumed: typical root-port buffer (docs/sources.md 10, no public figure)"},
	{"pcie.host_pd_credits", "assumed: 16 KiB of posted data (docs/sources.md 10)"},
	{"pcie.host_nph_credits", "assumed: matches tags_max so tags, not NPH, limit reads"},
	{"pcie.host_npd_credits", "0 = infinite: MRd carries no data"},
	{"pcie.host_cplh_credits", "0 = infinite: root ports advertise infinite completion credits"},
	{"pcie.host_cpld_credits", "0 = infinite: root ports advertise infinite completion credits"},
	{"pcie.nic_ph_credits", "assumed: a doorbell/WQE buffer of 32 TLPs"},
	{"pcie.nic_pd_credits", "assumed: 2 KiB of MMIO write data (32 x 64 B)"},
	{"pcie.nic_nph_credits", "assumed: small; the host does not read the NIC"},
	{"pcie.nic_npd_credits", "assumed: small; the host does not read the NIC"},
	{"pcie.nic_cplh_credits", "0 = infinite: endpoints must advertise infinite completion credits (PCIe Base Spec 2.6.1)"},
	{"pcie.nic_cpld_credits", "0 = infinite: endpoints must advertise infinite completion credits (PCIe Base Spec 2.6.1)"},
	{"pcie.host_read_latency_fixed_ns", "docs/sources.md 1.1, calibrated once on nfp6000-e5: the 64 B median of 546 ns less what the link and the NFP engine add (pcie/defaults.go)"},
	{"pcie.host_read_latency_per_byte_ns", "docs/sources.md 1.1 slope, fitted with the link's own serialisation; charged per MRd"},
	{"pcie.host_read_spread_min_ns", "docs/sources.md 1.1: 64 B reads, min 520 against the median 546"},
	{"pcie.host_read_spread_p999_ns", "docs/sources.md 1.1: 64 B reads, p99.9 586 against the median 546"},
	{"pcie.host_read_spread_max_ns", "assumed: bounded at p99.9; docs/sources.md 1.1 gives no maximum for the E5 hosts"},
	{"pcie.host_llc_miss_fraction", "docs/sources.md 1.1: pcie-bench's buffers are host-warmed (LLC hits)"},
	{"pcie.host_llc_miss_ns", "docs/sources.md 1.1: cold buffer 600 against warm 546 ns, 64 B reads"},
	{"pcie.host_remote_numa_fraction", "docs/sources.md 1.1: device and memory on one socket"},
	{"pcie.host_remote_numa_ns", "docs/sources.md 1.1: remote socket 653 against local 546 ns, 64 B reads"},
	{"pcie.host_write_visible_fixed_ns", "docs/sources.md 1.1, calibrated once from the write-then-read rows (8..256 B) against the read rows (pcie/visibility_test.go)"},
	{"pcie.host_write_visible_per_byte_ns", "docs/sources.md 1.1, the same fit (8..256 B write-then-read rows)"},
	{"pcie.iommu", "docs/sources.md 1.1: pcie-bench's default runs have no IOMMU"},
	{"pcie.iotlb_entries", "docs/sources.md 1.2: no loss up to a 256 KB window (64 x 4 KB pages), loss from 512 KB"},
	{"pcie.iommu_page_bytes", "docs/sources.md 1.2: superpages disabled, 4 KB IOMMU pages"},
	{"pcie.iommu_walk_ns", "docs/sources.md 1.2: the miss step, 213-226 ns"},
	{"pcie.iommu_walkers", "docs/sources.md 1.2: 10.1 Gb/s of 64 B reads at a 64 MB window is 19.7 M walks/s, x 220 ns = 4.3 walks in flight"},
	{"pcie.mmio_issue_gap_ns", "docs/sources.md 2: UC MMIO TLPs leave 50-300 ns apart"},
	{"pcie.mmio_wc_issue_gap_ns", "docs/sources.md 9: ~175 M WC lines/s ceiling"},
	{"pcie.mmio_queue_max", "assumed: bounded CPU store/WC buffer backlog"},
	{"pcie.dma_read_channels", "assumed: HanGu's separate DMA channels for TX and RX descriptors and TX data (docs/sources.md 8)"},
	{"pcie.dma_write_channels", "assumed: HanGu's separate DMA channels for RX data and CQ writes (docs/sources.md 8)"},
	{"pcie.read_request_cycles", "assumed: the upper end of the NIC's 2-8 cycle stages (docs/nic.md); 3 channels serve 375 M reads/s at 1 GHz"},
	{"pcie.write_request_cycles", "assumed: the upper end of the NIC's 2-8 cycle stages; 2 channels serve 250 M writes/s at 1 GHz, above ConnectX-6's 215 M messages/s (docs/sources.md 7)"},
	{"pcie.read_tlps_per_cycle", "assumed: one TLP header a cycle per channel"},
	{"pcie.write_tlps_per_cycle", "assumed: one TLP header a cycle per channel"},
	{"pcie.dma_read_queue_depth", "assumed: a DMA command queue of 64 entries per path"},
	{"pcie.dma_write_queue_depth", "assumed: a DMA command queue of 64 entries per path"},
	{"pcie.msix_queue_max", "assumed: bound on pending MSI-X writes"},
	{"mtt.clock_period_ps", "assumed: ConnectX-6 Dx hca_core_clock 1 GHz (docs/sources.md 7); pipeline clock unpublished"},
	{"mtt.key_table_entries_max", "assumed: ConnectX-5 allows 2^24 MRs (docs/sources.md 3), too many to hold; HanGu caches 40000 (8)"},
	{"mtt.mpt_entry_bytes", "docs/sources.md 6/8: HanGu MPT entry 32 B; section 9 gives 32-64 B"},
	{"mtt.mtt_entries_max", "assumed: 4 GiB of 4 KiB pages; mlx4 log_num_mtt sets it (docs/sources.md 6)"},
	{"mtt.mtt_alloc_policy", "assumed: first-fit"},
	{"mtt.mpt_base_addr", "assumed: any 64 B-aligned, non-overlapping ICM address"},
	{"mtt.mtt_base_addr", "assumed: any 64 B-aligned, non-overlapping ICM address"},
	{"mtt.mpt_cache.entries_max", "assumed: ConnectX sizes unpublished (docs/sources.md 3/10); 1024 x 32 B = 32 KiB SRAM"},
	{"mtt.mpt_cache.ways", "assumed: 4 ways, as Coyote's TLB (docs/sources.md 8)"},
	{"mtt.mpt_cache.line_bytes", "one 32 B MPT entry per line: the key cache caches entries by index"},
	{"mtt.mpt_cache.policy", "assumed: LRU; random (HanGu, docs/sources.md 8) available"},
	{"mtt.mpt_cache.latency_cycles", "assumed: Coyote lookup ~5-6 cycles at 250 MHz (docs/sources.md 8); ASIC SRAM read + compare in 4 ns"},
	{"mtt.mpt_cache.ports_per_cycle", "assumed: one lookup pipe per cache"},
	{"mtt.mpt_cache.mshrs_max", "assumed: Coyote allows 16 outstanding translations (docs/sources.md 8)"},
	{"mtt.mtt_cache.entries_max", "assumed: Coyote 4 KiB-page TLB, 2^10 sets x 4 ways (docs/sources.md 8): 16 MiB reach"},
	{"mtt.mtt_cache.ways", "docs/sources.md 8: Coyote TLB is 4-way"},
	{"mtt.mtt_cache.line_bytes", "docs/sources.md 6/9: 8 MTT entries, the UMR/fetch unit"},
	{"mtt.mtt_cache.policy", "assumed: LRU; random (HanGu, docs/sources.md 8) available"},
	{"mtt.mtt_cache.latency_cycles", "assumed: Coyote lookup ~5-6 cycles at 250 MHz (docs/sources.md 8); ASIC SRAM read + compare in 4 ns"},
	{"mtt.mtt_cache.ports_per_cycle", "assumed: one lookup pipe per cache"},
	{"mtt.mtt_cache.mshrs_max", "assumed: Coyote allows 16 outstanding translations (docs/sources.md 8)"},
	{"mtt.requests_max", "assumed: bounds translate requests in flight (Coyote allows 16; a NIC serving several QPs needs more)"},
	{"mtt.write_ops_max", "assumed: bounds registration writes in flight"},
	{"mtt.mtt_write_bytes_max", "docs/sources.md 6: UMR MTT updates in 64 B units (MLX5_UMR_MTT_ALIGNMENT)"},
	{"mtt.cache_write_policy", "assumed: invalidate; update keeps cached copies (write-through)"},
}

// wireSources gives the source of every value of nic.DefaultWireSpec.
var wireSources = []ValueSource{
	{"wire.latency_ns", "assumed: 500 ns one way, a few metres of cable and two MAC/PHY traversals, no switch (nic/wire.go)"},
	{"wire.gbit_per_s", "assumed: a 100 Gb/s port (ConnectX-5 class, docs/sources.md 7)"},
	{"wire.header_bytes", "RoCEv2 headers of every packet: Ethernet 14 (no VLAN, assumed) + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B (IBTA Annex A17, IEEE 802.3, RFC 791/768); RETH/AETH/IETH added per packet type"},
	{"wire.framing_bytes", "IEEE 802.3: preamble and SFD 8 + inter-frame gap 12 = 20 B of line time per frame"},
	{"wire.mtu_bytes", "assumed: 4096, the largest IBTA path MTU, the usual RoCEv2 setting with jumbo frames"},
}

// nicSources gives the source of every value of nic.DefaultSpec, from the
// comments in nic/spec.go and docs/nic.md ("Parameters").
var nicSources = func() []ValueSource {
	src := []ValueSource{
		{"nic.clock_period_ps", "assumed: ConnectX internal clock unpublished (docs/sources.md 7 [gap]); CX-6 Dx hca_core_clock 1000 MHz; must equal mtt.clock_period_ps"},
		{"nic.frmr_page_count", "assumed (docs/ndk.md 1.3 requires >= 16): 256 pages, 1 MiB regions"},
		{"nic.max_initiator_queue_depth", "assumed"},
		{"nic.max_receive_queue_depth", "assumed"},
		{"nic.max_cq_depth", "assumed"},
		{"nic.qps_max", "assumed simulator bound (ConnectX-5: 262144 QPs, docs/sources.md 3)"},
		{"nic.cqs_max", "assumed simulator bound"},
		{"nic.host_base_addr", "assumed: SQ rings, page lists and CQ rings, clear of the TPT's ICM"},
		{"nic.mmio_base_addr", "assumed: BAR of doorbells and WQE-by-MMIO buffers"},
		{"nic.wqe_bytes", "docs/sources.md 6: 64 B basic blocks (ERNIC WQE 64 B)"},
		{"nic.doorbell_bytes", "docs/sources.md 2: 8 B doorbell"},
		{"nic.wqe_by_mmio", "docs/sources.md 2: BlueFlame is the default for single WQEs"},
		{"nic.inline_page_list_entries_max", "docs/sources.md 5, 6: 8 entries (64 B) inline (kernel commit 064e5262)"},
		{"nic.defer_chain_max", "assumed (docs/ndk.md rule 14: MAX_DEFERRED_SQ_REQUESTS of the MS sample, value unpublished)"},
		{"nic.mr_pool_entries", "assumed size of the mlx5 mkey-cache analogue (docs/sources.md 4)"},
		{"nic.firmware_command_ns", "docs/sources.md 4: ~50 us per MR with the mlx5 mkey cache"},
		{"nic.register_firmware_ns", "docs/sources.md 4, 9: mlx5 with the mkey cache, ~50 us per MR"},
		{"nic.deregister_firmware_ns", "docs/sources.md 4: mlx5 dereg ~40 us per MR with the mkey cache"},
		{"nic.pin_ps_per_page", "docs/sources.md 4, 9: ~0.3 us per 4 KiB page pinned (verbs; Mooncake 0.38 us)"},
		{"nic.unpin_ps_per_page", "docs/sources.md 4: Mooncake, 500 GB deregistered in 11.8 s = 96 ns per page"},
		{"nic.firmware_command_bytes", "assumed: the mlx5 command-queue entry is 64 B"},
		{"nic.firmware_queue_depth", "assumed: mlx5 has up to 32 command-queue entries"},
		{"nic.max_registration_size_bytes", "assumed: 1 GiB (2^18 MTT entries, a quarter of the default MTT)"},
		{"nic.max_window_size_bytes", "assumed: 1 MiB (docs/ndk.md 1.3 ties MaxWindowSize to no other limit)"},
		{"nic.mrs_max", "docs/sources.md 3: ConnectX-5 max_mr 2^24"},
		{"nic.mws_max", "docs/sources.md 3: ConnectX-5 max_mw 2^24"},
		{"nic.register_mr_inline", "docs/ndk.md rule 1: off, NdkRegisterMr pends"},
		{"nic.read_sink_required", "docs/ndk.md rule 23: off by default (the adapter reports RDMA_READ_SINK_NOT_REQUIRED)"},
		{"nic.host_memory_pages_max", "assumed: 2^20 pages (4 GiB) of host memory model, a simulator bound"},
		{"nic.rotate_fast_register_key", "docs/ndk.md 5.3: off by default"},
		{"nic.remote_access_error_status", "docs/ndk.md 5.4: STATUS_ACCESS_VIOLATION (0xC0000005)"},
		{"nic.host_cores", "assumed: a 16-core E5-class socket; QP n on core n mod 16, one core per QP up to 16 QPs (docs/sources.md 2, Kalia: one core per QP)"},
		{"nic.post_wqe_build_ps", "assumed: ~60 cycles at 3 GHz to fill a WQE's 64 B blocks in a cached SQ ring (docs/sources.md 6; no published figure, 10)"},
		{"nic.post_doorbell_store_ps", "assumed: the core's uncached 8 B store and barrier; the 50-300 ns gap between UC TLPs (docs/sources.md 2) is the link's MMIO path (pcie.mmio_issue_gap_ns)"},
		{"nic.post_wc_line_ps", "assumed: one 64 B write-combined store burst and fence per line (docs/sources.md 2, BlueFlame); the ~175 M lines/s ceiling is the link's (pcie.mmio_wc_issue_gap_ns)"},
		{"nic.poll_cqe_ps", "assumed: an LLC hit on the DMA-written 64 B CQE plus consumer bookkeeping, ~70 cycles at 3 GHz (no published figure, docs/sources.md 10)"},
		{"nic.wqe_fetch_batch_max", "docs/sources.md 2: Connect-IB and newer read all new WQEs of a QP in one DMA; 64 = nic.defer_chain_max, so a chain is one read"},
		{"nic.wqe_fetch_outstanding_max", "assumed"},
		{"nic.exec_engines", "assumed: with one dependent page-list read per engine the model saturates near docs/sources.md 5's ~1.3 M/s"},
		{"nic.page_list_fetches_max", "assumed (docs/sources.md 5: the engine blocks on the dependent read)"},
		{"nic.cqe_bytes", "assumed: mlx5 CQEs are 64 B"},
		{"nic.responder_bytes_per_cycle", "docs/sources.md 7: 512-bit (64 B) datapaths of FPGA RNICs (Coyote, ERNIC)"},
		{"nic.moderation_cqes", "assumed: no interrupt moderation by default"},
		{"nic.moderation_time_ns", "assumed: no interrupt moderation by default"},
	}
	for _, f := range []string{"latency_cycles", "items_per_cycle", "interval_cycles", "queue_depth"} {
		src = append(src, ValueSource{"nic.responder." + f,
			"assumed: 8 cycles, 1 packet per 4 cycles (250 M packets/s at 1 GHz, the order of ConnectX-6's 215 M messages/s, docs/sources.md 7), a receive buffer of 256 messages (unpublished, docs/sources.md 10)"})
	}
	for _, st := range []string{"doorbell", "scheduler", "wqe_fetch", "parse", "validate", "page_list", "mtt_write", "mpt_update", "cache_write", "completion"} {
		for _, f := range []string{"latency_cycles", "items_per_cycle", "interval_cycles", "queue_depth"} {
			src = append(src, ValueSource{"nic." + st + "." + f,
				"assumed: 2-8 cycle stages, the order of an ASIC pipeline stage at 1 GHz; no RNIC publishes them (docs/sources.md 10, docs/nic.md)"})
		}
	}
	return src
}()

// Presets returns the preset table in its fixed order.
func Presets() []Preset { return presets }

// PresetByName finds a preset.
func PresetByName(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the presets' names in table order.
func PresetNames() []string {
	n := make([]string, len(presets))
	for i, p := range presets {
		n[i] = p.Name
	}
	return n
}

// PresetValue is one row of `nicsim presets`.
type PresetValue struct {
	Key    string // dotted key below adapter
	Value  string // JSON form
	Source string
}

// Values lists every model parameter of the preset with its value and
// source, in spec field order.
func (p Preset) Values() []PresetValue {
	var out []PresetValue
	src := func(key string) string {
		for _, s := range p.Sources {
			if s.Key == key {
				return s.Source
			}
		}
		if b, ok := PresetByName(p.Base); ok && p.Base != "" {
			for _, s := range b.Sources {
				if s.Key == key {
					return "as " + b.Name + ": " + s.Source
				}
			}
		}
		return "unsourced"
	}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			key := joinPath(prefix, f.name)
			if fv.Kind() == reflect.Struct {
				walk(key, fv)
				continue
			}
			b, _ := json.Marshal(fv.Interface())
			out = append(out, PresetValue{Key: key, Value: string(b), Source: src(key)})
		}
	}
	a := reflect.ValueOf(p.Adapter)
	for _, f := range fieldsOf(a.Type()) {
		if f.name == "preset" {
			continue
		}
		walk(f.name, a.Field(f.index))
	}
	return out
}

// modelRules bounds every model parameter a file can set, by the spec's
// JSON names. They follow each package's Validate, and are tighter where
// Validate allows values that would take a simulator gigabytes
// (key_table_entries_max, mtt_entries_max, cache entries). Validate still
// runs afterwards for the rules that involve several fields.
var modelRules = map[reflect.Type]map[string]string{
	reflect.TypeFor[pcie.Spec](): {
		"gen": "1..5", "lanes": "1|2|4|8|16", "link_latency_ns": "0..1e7",
		"mps_bytes": "pow2 128..4096", "mrrs_bytes": "pow2 128..4096", "rcb_bytes": "64|128",
		"completion_split": "mps|rcb", "tags_max": "1..65536",
		"host_ph_credits": "0..2^20", "host_pd_credits": "0..2^20", "host_nph_credits": "0..2^20",
		"host_npd_credits": "0..2^20", "host_cplh_credits": "0..2^20", "host_cpld_credits": "0..2^20",
		"nic_ph_credits": "0..2^20", "nic_pd_credits": "0..2^20", "nic_nph_credits": "0..2^20",
		"nic_npd_credits": "0..2^20", "nic_cplh_credits": "0..2^20", "nic_cpld_credits": "0..2^20",
		"host_read_latency_fixed_ns": "0..1e7", "host_read_latency_per_byte_ns": "0..1000",
		"host_read_spread_min_ns": "0..1e7", "host_read_spread_p999_ns": "0..1e7", "host_read_spread_max_ns": "0..1e7",
		"host_llc_miss_fraction": "0..1", "host_llc_miss_ns": "0..1e7",
		"host_remote_numa_fraction": "0..1", "host_remote_numa_ns": "0..1e7",
		"host_write_visible_fixed_ns": "0..1e7", "host_write_visible_per_byte_ns": "0..1000",
		"iotlb_entries": "1..65536", "iommu_page_bytes": "pow2 4096..2^30", "iommu_walk_ns": "0..1e7", "iommu_walkers": "1..1024",
		"mmio_issue_gap_ns": "0..1e7", "mmio_wc_issue_gap_ns": "0..1e7", "mmio_queue_max": "1..65536",
		"dma_read_channels": "1..1024", "dma_write_channels": "1..1024",
		"read_request_cycles": "0..2^20", "write_request_cycles": "0..2^20",
		"read_tlps_per_cycle": "1..64", "write_tlps_per_cycle": "1..64",
		"dma_read_queue_depth": "1..65536", "dma_write_queue_depth": "1..65536", "msix_queue_max": "1..65536",
	},
	reflect.TypeFor[mtt.Spec](): {
		"clock_period_ps": "1..1e6", "key_table_entries_max": "1..2^20", "mpt_entry_bytes": "pow2 32..256",
		"mtt_entries_max": "1..2^24", "mtt_alloc_policy": "first-fit|best-fit",
		"mpt_base_addr": "mult:64 0..2^48", "mtt_base_addr": "mult:64 0..2^48",
		"requests_max": "1..65536", "write_ops_max": "1..65536", "mtt_write_bytes_max": "mult:64 64..4096",
		"cache_write_policy": "update|invalidate",
	},
	reflect.TypeFor[nic.WireSpec](): {"latency_ns": "0..1e9", "gbit_per_s": "1..10000", "header_bytes": "0..4096",
		"framing_bytes": "0..4096", "mtu_bytes": "256|512|1024|2048|4096"},
	reflect.TypeFor[nic.Spec](): {
		"clock_period_ps": "1..1e6", "frmr_page_count": "16..65536",
		"max_initiator_queue_depth": "1..65536", "max_receive_queue_depth": "1..65536", "max_cq_depth": "1..2^22",
		"qps_max": "1..2^20", "cqs_max": "1..2^20",
		"host_base_addr": "mult:4096 0..2^48", "mmio_base_addr": "mult:4096 0..2^48",
		"wqe_bytes": "64..64", "doorbell_bytes": "1..64", "inline_page_list_entries_max": "0..64",
		"defer_chain_max": "0..65536", "mr_pool_entries": "0..2^20", "firmware_command_ns": "1..1e9",
		"remote_access_error_status": "3221225477|3221225789",
		"register_firmware_ns":       "1..1e9", "deregister_firmware_ns": "1..1e9", "pin_ps_per_page": "0..1e9",
		"unpin_ps_per_page": "0..1e9", "firmware_command_bytes": "1..4096", "firmware_queue_depth": "1..1024",
		"max_registration_size_bytes": "4096..2^40", "host_memory_pages_max": "1..2^20",
		"max_window_size_bytes": "1..2^40", "mrs_max": "1..2^24", "mws_max": "0..2^24",
		"wqe_fetch_batch_max": "1..256", "wqe_fetch_outstanding_max": "1..1024", "exec_engines": "1..64",
		"page_list_fetches_max": "1..256", "cqe_bytes": "1..256", "moderation_cqes": "1..65536",
		"moderation_time_ns": "0..1e9", "host_cores": "1..1024", "post_wqe_build_ps": "0..1e9",
		"post_doorbell_store_ps": "0..1e9", "post_wc_line_ps": "0..1e9", "poll_cqe_ps": "0..1e9",
		"responder_bytes_per_cycle": "1..4096",
	},
	reflect.TypeFor[nic.StageSpec](): {
		"latency_cycles": "1..100000", "items_per_cycle": "1..64", "interval_cycles": "1..100000", "queue_depth": "1..4096",
	},
	reflect.TypeFor[mtt.CacheSpec](): {
		"entries_max": "1..2^20", "ways": "1..1024", "line_bytes": "pow2 8..4096", "policy": "lru|random",
		"latency_cycles": "1..1000", "ports_per_cycle": "1..64", "mshrs_max": "1..4096",
	},
}

func modelRule(t reflect.Type, name string) string { return modelRules[t][name] }

// jsonName maps a Go field name of a model spec to its JSON name.
func jsonName(t reflect.Type, goName string) string {
	f, ok := t.FieldByName(goName)
	if !ok {
		return ""
	}
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return n
}

// checkModels runs each model section's own Validate (the rules that span
// several fields) and reports every complaint at the key it names. Any
// Adapter field with a `Validate() error` method is a model section, so a
// new section needs no change here.
func (a *Adapter) checkModels(d *decoder, path string) {
	v := reflect.ValueOf(a).Elem()
	for _, f := range fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		m, ok := fv.Interface().(interface{ Validate() error })
		if !ok {
			continue
		}
		err := m.Validate()
		if err == nil {
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if f.name == "nic" && strings.HasPrefix(line, "mtt: ") {
				continue // the TPT is the mtt section, which reports it
			}
			if f.name == "nic" && strings.HasPrefix(line, "nic: tpt.clock_period_ps = ") {
				d.errPath(joinPath(joinPath(path, "nic"), "clock_period_ps"), "%d must equal adapter.mtt.clock_period_ps = %d: one NIC clock",
					a.NIC.ClockPeriodPS, a.MTT.ClockPeriodPS)
				continue
			}
			msg := strings.TrimPrefix(line, f.name+": ")
			key := ""
			if name, rest, ok := strings.Cut(msg, " = "); ok && !strings.ContainsAny(name, " ") {
				key = name
				if j := jsonName(fv.Type(), name); j != "" {
					key = j
				}
				msg = rest
			}
			d.errPath(joinPath(joinPath(path, f.name), key), "%s", msg)
		}
	}
}

// presetList is the preset names for messages.
func presetList() string {
	q := make([]string, len(presets))
	for i, p := range presets {
		q[i] = fmt.Sprintf("%q", p.Name)
	}
	return strings.Join(q, ", ")
}
