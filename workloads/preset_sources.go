package workloads

// The source of every value of the generic preset, the packages' default
// specs: docs/sources.md sections or "assumed" and why. Device presets
// (preset_devices.go) cite their own values and take the rest from here.

// genericSpecSources gives the source of every value of pcie.DefaultSpec
// and mtt.DefaultSpec, from the comments in pcie/spec.go and mtt/spec.go and
// from docs/pcie.md and docs/mtt.md.
var genericSpecSources = []ValueSource{
	{"pcie.gen", "docs/sources.md 1: NFP-6000 on PCIe gen3 x8"},
	{"pcie.lanes", "docs/sources.md 1"},
	{"pcie.ecrc", "assumed: ECRC is rarely enabled; section 1.4 overheads exclude it"},
	{"pcie.addr64", "docs/sources.md 1.4 / 11: 24 B MWr/MRd overhead is the 64-bit form"},
	{"pcie.link_latency_ns", "assumed: ~10 ns per direction for PHY pipelines and a short trace, no public figure; only its sum with the host fixed latency is calibrated"},
	{"pcie.mps_bytes", "docs/sources.md 1.3: measured at MPS 256"},
	{"pcie.mrrs_bytes", "assumed: common BIOS default"},
	{"pcie.rcb_bytes", "docs/sources.md 11: RCB is 64 or 128 B; 64 assumed"},
	{"pcie.completion_split", "docs/sources.md 11: modern hosts complete in MPS-sized pieces"},
	{"pcie.tags_max", "assumed: 5-bit tags; 62 M reads/s x 546 ns needs ~34 outstanding (docs/sources.md 1.1, 1.3), so 32 bind 64 B reads about 5 % below the NFP engine (docs/DEVIATIONS.md)"},
	{"pcie.host_ph_credits", "assumed: typical root-port buffer, no public figure"},
	{"pcie.host_pd_credits", "assumed: 16 KiB of posted data, no public figure"},
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
	{"pcie.host_read_latency_per_byte_ns", "docs/sources.md 1.1, calibrated once on nfp6000-e5 from the 64 B and 2048 B read medians: their slope, (1133 - 546) / (2048 - 64) = 0.296 ns/B, taken as 0.29 with the link's own serialisation counted apart; charged per MRd, so the 2048 B row is no longer reproduced (docs/DEVIATIONS.md, pcie)"},
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
	{"pcie.mmio_wc_issue_gap_ns", "assumed 0: no source gives the cores' write-combining issue rate; docs/sources.md 2's ~175 M lines/s is the gen3 x16 link's rate, which the link model charges itself (a line is a 4DW MWr of 88 B: 179 M/s on gen3 x16, 89.5 M/s on x8)"},
	{"pcie.mmio_queue_max", "assumed: bounded CPU store/WC buffer backlog"},
	{"pcie.dma_read_channels", "assumed: HanGu's separate DMA channels for TX and RX descriptors and TX data (docs/sources.md 8)"},
	{"pcie.dma_write_channels", "assumed: HanGu's separate DMA channels for RX data and CQ writes (docs/sources.md 8)"},
	{"pcie.read_request_cycles", "assumed: the upper end of the NIC's 2-8 cycle stages (docs/nic.md); 3 channels serve 375 M reads/s at 1 GHz"},
	{"pcie.write_request_cycles", "assumed: the upper end of the NIC's 2-8 cycle stages; 2 channels serve 250 M writes/s at 1 GHz, above ConnectX-6's 215 M messages/s (docs/sources.md 7)"},
	{"pcie.read_tlps_per_cycle", "assumed: one TLP header a cycle per channel"},
	{"pcie.write_tlps_per_cycle", "assumed: one TLP header a cycle per channel"},
	{"pcie.dma_read_queue_depth", "assumed: a DMA command queue of 64 entries per path"},
	{"pcie.dma_write_queue_depth", "assumed: a DMA command queue of 64 entries per path"},
	{"pcie.msix_queue_max", "assumed: bounds the MSI-X writes pending in the DMA engine; a queue of 64, as the DMA command queues"},
	{"mtt.clock_period_ps", "assumed: ConnectX-6 Dx hca_core_clock 1 GHz (docs/sources.md 7); pipeline clock unpublished"},
	{"mtt.key_table_entries_max", "assumed: ConnectX-5 allows 2^24 MRs (docs/sources.md 3), too many to hold; HanGu caches 40000 (8)"},
	{"mtt.mpt_entry_bytes", "docs/sources.md 6/8: HanGu MPT entry 32 B; section 9 gives 32-64 B"},
	{"mtt.mtt_entries_max", "assumed: 4 GiB of 4 KiB pages; mlx4 log_num_mtt sets it (docs/sources.md 6)"},
	{"mtt.mtt_alloc_policy", "assumed: first-fit, the simplest allocator; best-fit available; no source says which a NIC's driver uses"},
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
	{"mtt.write_ops_max", "assumed: 16 registration writes in flight (meter NIC.TPT.Writes); no source gives it, Coyote's 16 outstanding translations (docs/sources.md 8) are the same order"},
	{"mtt.mtt_write_bytes_max", "docs/sources.md 6: UMR MTT updates in 64 B units (MLX5_UMR_MTT_ALIGNMENT)"},
	{"mtt.cache_write_policy", "assumed: update (write-through, no allocate): the NIC writes its own MPT and MTT entries, so it writes them through its cache; invalidate would make every FastRegister and Invalidate of an MR miss on its next request"},
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
		{"nic.max_initiator_queue_depth", "assumed: an admission limit reported in NDK_ADAPTER_INFO and checked by NdkCreateQp and the workload kinds; no timing depends on it; 1024 is above every committed load's depth (at most 256)"},
		{"nic.max_receive_queue_depth", "assumed: an admission limit reported in NDK_ADAPTER_INFO and checked by NdkCreateQp and the workload kinds; no timing depends on it; 1024 is above every committed load's depth (at most 256)"},
		{"nic.max_cq_depth", "assumed: the largest CQ NdkCreateCq accepts, reported in NDK_ADAPTER_INFO; no source gives it; the chain kinds cap their CQ of 2 x streams x outstanding CQEs at it (scale.yaml's 2,097,152), and a full CQ stalls retirements (NIC.Completion.CQFullStalls)"},
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
		{"nic.pin_ps_per_page", "docs/sources.md 4, 9: ~0.3 us per 4 KiB page pinned (verbs, libfabric #4738; Mooncake 0.375 us, 500 GiB in 49.2 s)"},
		{"nic.unpin_ps_per_page", "docs/sources.md 4: Mooncake, 500 GiB (131.1 M pages of 4 KiB) deregistered in 11.754 s = 90 ns per page"},
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
		{"nic.rnr_timer_ns", "docs/sources.md 12: perftest's MIN_RNR_TIMER 12, 0.64 ms by IBTA's RNR NAK timer encoding"},
		{"nic.rnr_retry", "docs/sources.md 12: 7, retry for ever, as perftest and most RC consumers set it"},
		{"nic.host_cores", "assumed: a 16-core E5-class socket; QP n on core n mod 16, one core per QP up to 16 QPs (docs/sources.md 2, Kalia: one core per QP)"},
		{"nic.post_wqe_build_ps", "assumed: ~60 cycles at 3 GHz to fill a WQE's 64 B blocks in a cached SQ ring (docs/sources.md 6; no published figure, 10)"},
		{"nic.post_doorbell_store_ps", "assumed: the core's uncached 8 B store and barrier; the 50-300 ns gap between UC TLPs (docs/sources.md 2) is the link's MMIO path (pcie.mmio_issue_gap_ns)"},
		{"nic.post_wc_line_ps", "assumed: one 64 B write-combined store burst and fence per line (docs/sources.md 2, BlueFlame); the ~175 M lines/s ceiling is the link's, which the link model charges"},
		{"nic.poll_cqe_ps", "assumed: an LLC hit on the DMA-written 64 B CQE plus consumer bookkeeping, ~70 cycles at 3 GHz (no published figure)"},
		{"nic.wqe_fetch_batch_max", "docs/sources.md 2: Connect-IB and newer read all new WQEs of a QP in one DMA; 64 = nic.defer_chain_max, so a chain is one read"},
		{"nic.wqe_fetch_outstanding_max", "assumed: 16 WQE fetch reads in flight, all QPs; no RNIC publishes it; the meter NIC.WQEFetch.Reads shows when it binds"},
		{"nic.exec_engines", "assumed: one engine, which waits for one dependent page-list read per registration: on this preset DMA-fetched FastRegister saturates at 1.93 M/s (one 8 B read round trip, docs/nic.md \"Measured figures\"); connectx-5 reaches docs/sources.md 5's 1.30 M/s because its host read latency is calibrated from that figure"},
		{"nic.page_list_fetches_max", "assumed (docs/sources.md 5: the engine blocks on the dependent read)"},
		{"nic.cqe_bytes", "assumed: mlx5 CQEs are 64 B"},
		{"nic.responder_bytes_per_cycle", "docs/sources.md 7: 512-bit (64 B) datapaths of FPGA RNICs (Coyote, ERNIC)"},
		{"nic.moderation_cqes", "assumed: no interrupt moderation by default"},
		{"nic.moderation_time_ns", "assumed: no interrupt moderation by default"},
	}
	for _, f := range []string{"latency_cycles", "items_per_cycle", "interval_cycles", "queue_depth"} {
		src = append(src, ValueSource{"nic.responder." + f,
			"assumed: 8 cycles, 1 packet per 4 cycles (250 M packets/s at 1 GHz, the order of ConnectX-6's 215 M messages/s, docs/sources.md 7), a receive buffer of 256 messages (unpublished)"})
	}
	for _, st := range []string{"doorbell", "scheduler", "wqe_fetch", "parse", "validate", "page_list", "mtt_write", "mpt_update", "cache_write", "completion"} {
		for _, f := range []string{"latency_cycles", "items_per_cycle", "interval_cycles", "queue_depth"} {
			src = append(src, ValueSource{"nic." + st + "." + f,
				"assumed: 2-8 cycle stages, the order of an ASIC pipeline stage at 1 GHz; no RNIC publishes them (docs/sources.md 7: the pipeline clock is unpublished; 5: no FRWR, bind or invalidate latency is published; docs/nic.md)"})
		}
	}
	return src
}()
