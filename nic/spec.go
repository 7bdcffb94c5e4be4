package nic

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/nicsim/nicsim/mtt"
)

// StageSpec times one pipeline stage in NIC clock cycles: an item accepted
// at cycle c is visible to the next stage at cycle c+LatencyCycles; the
// stage accepts at most ItemsPerCycle items on an accepting cycle and then
// waits IntervalCycles cycles before accepting again, so its throughput is
// ItemsPerCycle/IntervalCycles items per cycle. QueueDepth bounds the queue
// in front of the stage (back-pressure on the stage before it).
type StageSpec struct {
	LatencyCycles  uint32 `json:"latency_cycles"`
	ItemsPerCycle  uint32 `json:"items_per_cycle"`
	IntervalCycles uint32 `json:"interval_cycles"`
	QueueDepth     uint32 `json:"queue_depth"`
}

// checks are the StageSpec's field checks, under the stage's JSON key.
func (s StageSpec) checks(name string) []fieldCheck {
	return []fieldCheck{
		{name + ".latency_cycles", s.LatencyCycles, in(s.LatencyCycles, 1, 100000), "1..100000"},
		{name + ".items_per_cycle", s.ItemsPerCycle, in(s.ItemsPerCycle, 1, 64), "1..64"},
		{name + ".interval_cycles", s.IntervalCycles, in(s.IntervalCycles, 1, 100000), "1..100000"},
		{name + ".queue_depth", s.QueueDepth, in(s.QueueDepth, 1, 4096), "1..4096"},
	}
}

// Spec configures the adapter: the NDK_ADAPTER_INFO it reports, the host
// (provider) side, and the NIC's send-queue pipeline. Every timing default
// cites docs/sources.md or says "assumed" and why (docs/nic.md).
type Spec struct {
	// ClockPeriodPS is the NIC core clock. Assumed 1000 ps (1 GHz): the
	// internal pipeline clock of ConnectX is not published (docs/sources.md 7,
	// [gap]); ConnectX-6 Dx reports hca_core_clock 1000 MHz. It must equal
	// TPT.ClockPeriodPS (one clock for the whole NIC).
	ClockPeriodPS uint64 `json:"clock_period_ps"`

	// Limits reported in NDK_ADAPTER_INFO. The three queue depths only bound
	// what a consumer may ask for (NdkCreateQp, NdkCreateCq, the workload
	// kinds); no source gives them. 1024 WRs is above every committed load's
	// queue depth (at most 256); the chain kinds cap their CQ at MaxCQDepth,
	// and a full CQ stalls retirements (Completion.CQFullStalls).
	FRMRPageCount          uint32 `json:"frmr_page_count"`           // >= 16 (docs/ndk.md 1.3); assumed 256 (1 MiB of 4 KiB pages)
	MaxInitiatorQueueDepth uint32 `json:"max_initiator_queue_depth"` // assumed 1024
	MaxReceiveQueueDepth   uint32 `json:"max_receive_queue_depth"`   // assumed 1024
	MaxCQDepth             uint32 `json:"max_cq_depth"`              // assumed 65536
	QPsMax                 uint32 `json:"qps_max"`                   // assumed 1024 (a simulator bound; ConnectX-5: 262144, docs/sources.md 3)
	CQsMax                 uint32 `json:"cqs_max"`                   // assumed 1024

	// Host and provider.
	HostBaseAddr uint64 `json:"host_base_addr"` // where SQ rings, page lists and CQ rings are placed; assumed, clear of the TPT's ICM
	MMIOBaseAddr uint64 `json:"mmio_base_addr"` // BAR of doorbells and WQE-by-MMIO buffers; assumed
	// WQEBytes is one WQE basic block: 64 B (docs/sources.md 6: mlx5 send WQEs
	// are built of 64 B basic blocks; ERNIC WQE = 64 B).
	WQEBytes uint32 `json:"wqe_bytes"`
	// DoorbellBytes is the doorbell MMIO write: 8 B (docs/sources.md 2).
	DoorbellBytes uint32 `json:"doorbell_bytes"`
	// WQEByMMIO lets the provider write a lone WQE (a post with no deferred
	// predecessors) with 64 B write-combined MMIO stores instead of ringing
	// a doorbell (docs/sources.md 2, Mellanox BlueFlame). Default true: it is the
	// default for single WQEs on Mellanox NICs.
	WQEByMMIO bool `json:"wqe_by_mmio"`
	// InlinePageListEntriesMax is the largest FastRegister page list carried
	// inside the WQE (8 entries = 64 B, one extra basic block: docs/sources.md
	// 5 and 6, kernel commit 064e5262). 0 disables inline page lists.
	InlinePageListEntriesMax uint32 `json:"inline_page_list_entries_max"`
	// DeferChainMax rings the doorbell when this many deferred requests are
	// pending on one queue (docs/ndk.md rule 14/15: Microsoft's sample caps
	// chains at MAX_DEFERRED_SQ_REQUESTS). 0 means no cap. Assumed 64.
	DeferChainMax uint32 `json:"defer_chain_max"`
	// MRPoolEntries is the provider's pool of key-table entries prepared
	// ahead by firmware (the mlx5 mkey cache, docs/sources.md 4): NdkCreateMr
	// takes one inline (STATUS_SUCCESS); with the pool empty it issues a
	// firmware command and returns STATUS_PENDING. Assumed 64.
	MRPoolEntries uint32 `json:"mr_pool_entries"`
	// FirmwareCommandNS is the firmware time of a create-mkey command when
	// the pool is empty. 50 us: mlx5 re-registration through the mkey cache
	// (docs/sources.md 4: ~50 us per MR with UMR reuse, ~280 us without).
	FirmwareCommandNS uint64 `json:"firmware_command_ns"`
	// RegisterFirmwareNS is the firmware's fixed work per NdkRegisterMr
	// (mkey create + command overhead). 50 us: docs/sources.md 4 and 9, mlx5
	// with the mkey cache (~50 us per MR; ~280 us without it). The adapter
	// keeps a pool of prepared key-table entries (MRPoolEntries), the same
	// mechanism, so the cached figure is the consistent one.
	RegisterFirmwareNS uint64 `json:"register_firmware_ns"`
	// DeregisterFirmwareNS is the firmware's fixed work per NdkDeregisterMr.
	// 40 us: docs/sources.md 4 (mlx5 dereg ~40 us per MR with the mkey cache,
	// ~200 us without).
	DeregisterFirmwareNS uint64 `json:"deregister_firmware_ns"`
	// PinPSPerPage is the host's cost to pin one 4 KiB page and put it in
	// the page list. 300 ns: docs/sources.md 4 and 9 (256 GB in > 20 s with
	// verbs, ~0.3 us per page; Mooncake 0.375 us reading its 500 GB as GiB).
	PinPSPerPage uint64 `json:"pin_ps_per_page"`
	// UnpinPSPerPage is the host's cost to unpin one page at
	// deregistration. 90 ns: docs/sources.md 4 (Mooncake: 500 GiB, 131.1 M
	// pages of 4 KiB, deregistered in 11.754 s; the same GiB reading as the
	// 0.375 us per page it gives for registration).
	UnpinPSPerPage uint64 `json:"unpin_ps_per_page"`
	// FirmwareCommandBytes is the size of a command-queue entry written by
	// MMIO. Assumed 64 B (the mlx5 command-queue entry is 64 B).
	FirmwareCommandBytes uint32 `json:"firmware_command_bytes"`
	// FirmwareQueueDepth bounds the commands in the NIC's command queue;
	// the provider holds further ones. Assumed 32 (mlx5 has up to 32
	// command-queue entries).
	FirmwareQueueDepth uint32 `json:"firmware_queue_depth"`
	// MaxRegistrationSizeBytes is NDK_ADAPTER_INFO.MaxRegistrationSize:
	// the largest NdkRegisterMr (rule 20). Assumed 1 GiB (2^18 MTT
	// entries, a quarter of the default MTT).
	MaxRegistrationSizeBytes uint64 `json:"max_registration_size_bytes"`
	// MaxWindowSizeBytes is NDK_ADAPTER_INFO.MaxWindowSize: the longest
	// memory window NdkBind accepts (docs/ndk.md 1.3, rule 48), a setting of
	// its own. Assumed 1 MiB; NDK ties it to no other limit.
	MaxWindowSizeBytes uint64 `json:"max_window_size_bytes"`
	// MRsMax and MWsMax are the most MR and MW objects the adapter holds at
	// once (NdkCreateMr, NdkCreateMw beyond them: STATUS_INSUFFICIENT_RESOURCES
	// inline, docs/ndk.md rules 17, 46); both also take key-table entries.
	// 2^24 each: ConnectX-5's max_mr and max_mw (docs/sources.md 3).
	MRsMax uint32 `json:"mrs_max"`
	MWsMax uint32 `json:"mws_max"`
	// RegisterMrInline makes NdkRegisterMr complete inline where its caller
	// may wait (docs/ndk.md rule 1, 2.A: inline and pending are both legal):
	// called outside an event handler, the provider waits for its firmware
	// command - the simulated clock runs on while it waits - and returns
	// STATUS_SUCCESS with no callback; called from an event (a callback, a
	// workload's generator), where a provider may not wait, it returns
	// STATUS_PENDING as without the setting. Default false: always pending.
	RegisterMrInline bool `json:"register_mr_inline"`
	// ReadSinkRequired makes the adapter report no
	// NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED (docs/ndk.md rule 23): the
	// local sink of an RDMA Read must then be an MR registered with
	// NDK_MR_FLAG_RDMA_READ_SINK (or fast-registered with
	// NDK_OP_FLAG_RDMA_READ_SINK); else the Read fails at execute with
	// STATUS_ACCESS_VIOLATION and moves no byte. Default false (the flag is
	// reported and the consumer's READ_SINK bits are accepted and ignored).
	ReadSinkRequired bool `json:"read_sink_required"`
	// HostMemoryPagesMax bounds the host memory model (pages written).
	// Assumed 2^20 pages (4 GiB): a simulator bound, not a hardware figure.
	HostMemoryPagesMax uint32 `json:"host_memory_pages_max"`
	// RotateFastRegisterKey gives the MR a new 8-bit key at every
	// NdkFastRegister post (docs/ndk.md 5.3). Default false.
	RotateFastRegisterKey bool `json:"rotate_fast_register_key"`
	// RemoteAccessErrorStatus is the initiator status of a refused remote
	// access (docs/ndk.md 5.4): STATUS_ACCESS_VIOLATION or STATUS_REMOTE_RESOURCES.
	// Used by the responder (responder.go).
	RemoteAccessErrorStatus Status `json:"remote_access_error_status"`
	// RNRTimerNS is this adapter's minimum RNR NAK timer, as responder: how
	// long the initiator waits before it sends a Send again that found no
	// receive posted, with the requests of its QP after it (IBTA vol. 1
	// 9.7.5.2.8; the RNR NAK carries it). Default 640 µs: encoding 12,
	// perftest's MIN_RNR_TIMER (docs/sources.md 12).
	RNRTimerNS uint64 `json:"rnr_timer_ns"`
	// RNRRetry is how many times this adapter, as initiator, sends such a
	// Send again before it completes it with STATUS_REMOTE_RESOURCES and
	// both QPs go to error: 0..6, or 7 for no limit (IBTA's rnr_retry).
	// Default 7, as perftest sets it (docs/sources.md 12).
	RNRRetry uint32 `json:"rnr_retry"`

	// Host CPU: the cores that post work requests and poll CQs (hostcpu.go).
	// HostCores is the number of posting cores; QP n posts and polls on core
	// n mod HostCores. Assumed 16: a 16-core socket (E5-2600 v3/v4 parts
	// have 8-22 cores), so up to 16 QPs each have a core of their own, as
	// in Kalia et al.'s one core per QP (docs/sources.md 2).
	HostCores uint32 `json:"host_cores"`
	// PostWQEBuildPS is a core's time to build one WQE in the SQ ring (its
	// 64 B basic blocks in a cache-resident ring, the producer index).
	// Assumed 20 ns, about 60 cycles at 3 GHz: the provider's post path
	// fills a control and a data segment (docs/sources.md 6), no figure is
	// published.
	PostWQEBuildPS uint64 `json:"post_wqe_build_ps"`
	// PostDoorbellStorePS is a core's time to execute the 8 B uncached
	// doorbell store and the write barrier before it. Assumed 10 ns: the
	// store retires into the store buffer; the 50-300 ns between uncached
	// MMIO TLPs of one core (docs/sources.md 2) is the MMIO path's gap, which
	// the PCIe link model times (pcie mmio_issue_gap_ns), not core time.
	PostDoorbellStorePS uint64 `json:"post_doorbell_store_ps"`
	// PostWCLinePS is a core's time to write one 64 B write-combined line
	// of a WQE-by-MMIO write and flush it (docs/sources.md 2: BlueFlame
	// copies the WQE in 64 B stores). Assumed 10 ns per line, as the
	// doorbell store: one store burst and a fence; the link's ceiling of
	// ~175 M lines/s (docs/sources.md 2, 9) is the MMIO path's.
	PostWCLinePS uint64 `json:"post_wc_line_ps"`
	// PollCQEPS is a core's time to take one CQE that has reached host
	// memory (read the 64 B CQE, check its owner bit, advance the consumer
	// index, hand the result on). Assumed 25 ns: the CQE was written by DMA
	// into the last-level cache, so the poll is an LLC hit of ~70 cycles at
	// 3 GHz plus bookkeeping; no figure is published.
	PollCQEPS uint64 `json:"poll_cqe_ps"`

	// NIC pipeline (NIC clock cycles; "assumed" unless said otherwise: no
	// RNIC publishes per-stage figures; docs/sources.md 7: the pipeline
	// clock is unpublished; 5: no FRWR, bind or invalidate latency is).
	Doorbell   StageSpec `json:"doorbell"`    // doorbell handler: MMIO record -> QP producer index
	Scheduler  StageSpec `json:"scheduler"`   // round robin over QPs with work
	WQEFetch   StageSpec `json:"wqe_fetch"`   // DMA-read of WQEs; latency is after the read returns
	Parse      StageSpec `json:"parse"`       // WQE decode
	Validation StageSpec `json:"validate"`    // QP state, MR state, READ_FENCE, hazard interlock
	PageList   StageSpec `json:"page_list"`   // page-list fetch by DMA (or pass-through when inline)
	MTTWrite   StageSpec `json:"mtt_write"`   // MTT entries to ICM by DMA
	MPTUpdate  StageSpec `json:"mpt_update"`  // key-table entry update + MPT write to ICM
	CacheWrite StageSpec `json:"cache_write"` // on-NIC MPT/MTT cache update
	Completion StageSpec `json:"completion"`  // CQE build and DMA write
	// Responder is the receive side's message processing (responder.go):
	// items are packets, the queue is the receive buffer in messages. Assumed
	// 8 cycles, 1 packet per 4 cycles (250 M packets/s at 1 GHz, the order
	// of ConnectX-6's 215 M messages/s, docs/sources.md 7), 256 messages.
	Responder StageSpec `json:"responder"`
	// ResponderBytesPerCycle is the responder's datapath width. 64 B: the
	// 512-bit datapaths of FPGA RNICs (docs/sources.md 7, Coyote, ERNIC).
	ResponderBytesPerCycle uint32 `json:"responder_bytes_per_cycle"`
	// TxBufferBytes is each transmit buffer's size: NIC memory for the
	// payload of outgoing packets from the start of their DMA read until
	// they have left on the wire (txbuffer.go), one for the requester's
	// Write and Send packets, one for the responder's Read responses. A
	// packet waits for room, in order. Assumed 64 KiB (16 packets of 4 KiB): no
	// RNIC publishes its size; a designer sizes it to keep the wire busy
	// across the payload reads in flight, and 64 KiB is about two and a
	// half times what a 200 Gb/s port sends during a 1 us DMA read round
	// trip (docs/sources.md 1.1: 0.53 to 1.13 us for 8 B to 2 KiB). The meters
	// NIC.Requester.TxBuffer and NIC.Responder.TxBuffer show when one binds.
	TxBufferBytes uint64 `json:"tx_buffer_bytes"`
	// RxBufferBytes is the requester's receive buffer for Read response
	// packets: NIC memory that holds a packet from the moment the peer's
	// responder sends it until its DMA write has placed it in host memory
	// (rxbuffer.go). The responder sends a response packet only when it
	// has room here (link-level flow control, as for requests and the
	// responder's buffer), so a requester whose PCIe link places slower
	// than the peer reads stops the peer instead of letting it read ahead.
	// Assumed 64 KiB, as the transmit buffers: no RNIC publishes it; a
	// designer sizes it to keep the wire busy across a flow-control round
	// trip, and 64 KiB is about two and a half times what a 200 Gb/s port
	// delivers in two wire latencies of 500 ns (WireSpec.LatencyNS). The
	// meter NIC.Requester.RxBuffer shows when it binds.
	RxBufferBytes uint64 `json:"rx_buffer_bytes"`

	// WQEFetchBatchMax is the most WQEs one fetch reads. 64: Connect-IB and
	// newer read all new WQEs of a QP in one DMA (docs/sources.md 2); 64 is
	// the provider's longest DEFER chain (DeferChainMax), so one chain is
	// one read. (Kalia's batch of 16 is the doorbell's, not the NIC's.)
	WQEFetchBatchMax uint32 `json:"wqe_fetch_batch_max"`
	// WQEFetchOutstandingMax bounds the WQE fetch reads in flight (all QPs).
	// Assumed 16: no RNIC publishes it. The meter NIC.WQEFetch.Reads shows
	// when it binds.
	WQEFetchOutstandingMax uint32 `json:"wqe_fetch_outstanding_max"`
	// ExecEngines is the number of execution engines (processing units);
	// QP n runs on engine n mod ExecEngines, in order (docs/sources.md 2: one QP
	// is coupled to one NIC processing unit). Assumed 1. The engine waits for
	// one dependent page-list read per registration, so DMA-fetched
	// FastRegister saturates at one 8 B read round trip: 1.93 M/s on the
	// default spec (docs/nic.md "Measured figures"). The connectx-5 preset
	// reaches the 1.30 M/s of docs/sources.md 5 because its host read
	// latency is calibrated from that figure (workloads/preset_devices.go).
	ExecEngines uint32 `json:"exec_engines"`
	// PageListFetchesMax is the page-list reads one engine may have in
	// flight. Items behind a fetching request wait (in-order engine): the
	// execution unit blocks on the dependent read (docs/sources.md 5: Chelsio's
	// "asynchronous TPT read that otherwise blocks the send queue"). Assumed 1.
	PageListFetchesMax uint32 `json:"page_list_fetches_max"`
	// ValidateReadsMax is the requests the validate stage holds while
	// their MPT reads are outstanding: it is in order, so a request whose
	// read misses holds those behind it, and their reads overlap up to
	// this many. The stage holds at least this many whatever its latency,
	// so a shorter latency does not cut the reads it can overlap. Assumed
	// 8: what its 8-cycle latency held before the setting existed.
	ValidateReadsMax uint32 `json:"validate_reads_max"`
	// CQEBytes is one CQE written by DMA. 64 B, assumed (mlx5 CQEs are 64 B).
	CQEBytes uint32 `json:"cqe_bytes"`
	// Interrupt moderation: an armed CQ raises MSI-X when ModerationCQEs CQEs
	// have arrived or ModerationTimeNS after the first, whichever is first.
	// Defaults 1 and 0 (no moderation): assumed.
	ModerationCQEs   uint32 `json:"moderation_cqes"`
	ModerationTimeNS uint64 `json:"moderation_time_ns"`

	// TPT is the translation and protection unit (package mtt).
	TPT mtt.Spec `json:"tpt"`
}

// RNRRetryUnlimited is Spec.RNRRetry's "retry for ever" (IBTA: 7).
const RNRRetryUnlimited = 7

// DefaultSpec returns the default adapter (see the field comments and
// docs/nic.md for the source or the reason of every value).
func DefaultSpec() Spec {
	st := func(lat, ipc, interval, q uint32) StageSpec {
		return StageSpec{LatencyCycles: lat, ItemsPerCycle: ipc, IntervalCycles: interval, QueueDepth: q}
	}
	return Spec{
		ClockPeriodPS:          1000,
		FRMRPageCount:          256,
		MaxInitiatorQueueDepth: 1024,
		MaxReceiveQueueDepth:   1024,
		MaxCQDepth:             65536,
		QPsMax:                 1024,
		CQsMax:                 1024,

		HostBaseAddr:             0x10_0000_0000,
		MMIOBaseAddr:             0xF000_0000,
		WQEBytes:                 64,
		DoorbellBytes:            8,
		WQEByMMIO:                true,
		InlinePageListEntriesMax: 8,
		DeferChainMax:            64,
		MRPoolEntries:            64,
		FirmwareCommandNS:        50_000,
		RotateFastRegisterKey:    false,
		RegisterFirmwareNS:       50_000,
		DeregisterFirmwareNS:     40_000,
		PinPSPerPage:             300_000,
		UnpinPSPerPage:           90_000,
		FirmwareCommandBytes:     64,
		FirmwareQueueDepth:       32,
		MaxRegistrationSizeBytes: 1 << 30,
		MaxWindowSizeBytes:       1 << 20,
		MRsMax:                   1 << 24,
		MWsMax:                   1 << 24,
		HostMemoryPagesMax:       1 << 20,
		RemoteAccessErrorStatus:  StatusAccessViolation,
		RNRTimerNS:               640_000,
		RNRRetry:                 RNRRetryUnlimited,

		HostCores:           16,
		PostWQEBuildPS:      20_000,
		PostDoorbellStorePS: 10_000,
		PostWCLinePS:        10_000,
		PollCQEPS:           25_000,

		Doorbell:   st(4, 1, 1, 64),
		Scheduler:  st(2, 1, 1, 64),
		WQEFetch:   st(4, 1, 1, 16),
		Parse:      st(4, 1, 1, 16),
		Validation: st(8, 1, 1, 16),
		PageList:   st(4, 1, 1, 16),
		MTTWrite:   st(8, 1, 4, 16),
		MPTUpdate:  st(8, 1, 4, 16),
		CacheWrite: st(4, 1, 1, 16),
		Completion: st(8, 1, 2, 64),
		Responder:  st(8, 1, 4, 256),

		ResponderBytesPerCycle: 64,
		TxBufferBytes:          64 << 10,
		RxBufferBytes:          64 << 10,

		WQEFetchBatchMax:       64,
		WQEFetchOutstandingMax: 16,
		ExecEngines:            1,
		PageListFetchesMax:     1,
		ValidateReadsMax:       8,
		CQEBytes:               64,
		ModerationCQEs:         1,
		ModerationTimeNS:       0,

		TPT: mtt.DefaultSpec(),
	}
}

// Validate checks every field and names the field, its value and the range
// allowed in each complaint.
func (s Spec) Validate() error {
	var errs []error
	check := func(cs []fieldCheck) {
		for _, c := range cs {
			if !c.ok {
				errs = append(errs, fmt.Errorf("nic: %s = %v, want %s", c.field, c.v, c.want))
			}
		}
	}
	check([]fieldCheck{
		{"clock_period_ps", s.ClockPeriodPS, in(s.ClockPeriodPS, 1, 1_000_000), "1..1000000"},
		{"tpt.clock_period_ps", s.TPT.ClockPeriodPS, s.TPT.ClockPeriodPS == s.ClockPeriodPS, fmt.Sprintf("equal to clock_period_ps (%d): one NIC clock", s.ClockPeriodPS)},
		{"frmr_page_count", s.FRMRPageCount, in(s.FRMRPageCount, FRMRPageCountMin, 1<<20), "16..2^20 (docs/ndk.md 1.3: >= 16)"},
		{"max_initiator_queue_depth", s.MaxInitiatorQueueDepth, in(s.MaxInitiatorQueueDepth, 1, 1<<16), "1..65536"},
		{"max_receive_queue_depth", s.MaxReceiveQueueDepth, in(s.MaxReceiveQueueDepth, 1, 1<<16), "1..65536"},
		{"max_cq_depth", s.MaxCQDepth, in(s.MaxCQDepth, 1, 1<<22), "1..2^22"},
		{"qps_max", s.QPsMax, in(s.QPsMax, 1, 1<<20), "1..2^20"},
		{"cqs_max", s.CQsMax, in(s.CQsMax, 1, 1<<20), "1..2^20"},
		{"host_base_addr", fmt.Sprintf("%#x", s.HostBaseAddr), s.HostBaseAddr%4096 == 0, "a multiple of 4096"},
		{"wqe_bytes", s.WQEBytes, s.WQEBytes == 64, "64 (the basic block of the WQE layout)"},
		{"doorbell_bytes", s.DoorbellBytes, in(s.DoorbellBytes, 1, 64), "1..64"},
		{"inline_page_list_entries_max", s.InlinePageListEntriesMax, s.InlinePageListEntriesMax <= 64, "0..64"},
		{"defer_chain_max", s.DeferChainMax, s.DeferChainMax <= 1<<16, "0..65536"},
		{"mr_pool_entries", s.MRPoolEntries, s.MRPoolEntries <= 1<<20, "0..2^20"},
		{"firmware_command_ns", s.FirmwareCommandNS, in(s.FirmwareCommandNS, 1, 1_000_000_000), "1..1e9"},
		{"register_firmware_ns", s.RegisterFirmwareNS, in(s.RegisterFirmwareNS, 1, 1_000_000_000), "1..1e9"},
		{"deregister_firmware_ns", s.DeregisterFirmwareNS, in(s.DeregisterFirmwareNS, 1, 1_000_000_000), "1..1e9"},
		{"pin_ps_per_page", s.PinPSPerPage, s.PinPSPerPage <= 1_000_000_000, "0..1e9"},
		{"unpin_ps_per_page", s.UnpinPSPerPage, s.UnpinPSPerPage <= 1_000_000_000, "0..1e9"},
		{"firmware_command_bytes", s.FirmwareCommandBytes, in(s.FirmwareCommandBytes, 1, 4096), "1..4096"},
		{"firmware_queue_depth", s.FirmwareQueueDepth, in(s.FirmwareQueueDepth, 1, 1024), "1..1024"},
		{"max_registration_size_bytes", s.MaxRegistrationSizeBytes, in(s.MaxRegistrationSizeBytes, PageSizeBytes, 1<<40), "4096..2^40"},
		{"max_window_size_bytes", s.MaxWindowSizeBytes, in(s.MaxWindowSizeBytes, 1, 1<<40), "1..2^40"},
		{"mrs_max", s.MRsMax, in(s.MRsMax, 1, 1<<24), "1..2^24"},
		{"mws_max", s.MWsMax, s.MWsMax <= 1<<24, "0..2^24"},
		{"host_memory_pages_max", s.HostMemoryPagesMax, in(s.HostMemoryPagesMax, 1, 1<<24), "1..2^24"},
		{"remote_access_error_status", s.RemoteAccessErrorStatus, s.RemoteAccessErrorStatus == StatusAccessViolation || s.RemoteAccessErrorStatus == StatusRemoteResources,
			"STATUS_ACCESS_VIOLATION or STATUS_REMOTE_RESOURCES"},
		{"rnr_timer_ns", s.RNRTimerNS, in(s.RNRTimerNS, 1, 1_000_000_000), "1..1e9"},
		{"rnr_retry", s.RNRRetry, s.RNRRetry <= RNRRetryUnlimited, "0..7"},
		{"host_cores", s.HostCores, in(s.HostCores, 1, 1024), "1..1024"},
		{"post_wqe_build_ps", s.PostWQEBuildPS, s.PostWQEBuildPS <= 1_000_000_000, "0..1e9"},
		{"post_doorbell_store_ps", s.PostDoorbellStorePS, s.PostDoorbellStorePS <= 1_000_000_000, "0..1e9"},
		{"post_wc_line_ps", s.PostWCLinePS, s.PostWCLinePS <= 1_000_000_000, "0..1e9"},
		{"poll_cqe_ps", s.PollCQEPS, s.PollCQEPS <= 1_000_000_000, "0..1e9"},
	})
	v := reflect.ValueOf(s) // every StageSpec field, under its JSON key
	for i := range v.NumField() {
		if st, ok := v.Field(i).Interface().(StageSpec); ok {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			check(st.checks(name))
		}
	}
	check([]fieldCheck{
		{"wqe_fetch_batch_max", s.WQEFetchBatchMax, in(s.WQEFetchBatchMax, 1, 256), "1..256"},
		{"wqe_fetch_outstanding_max", s.WQEFetchOutstandingMax, in(s.WQEFetchOutstandingMax, 1, 1024), "1..1024"},
		{"exec_engines", s.ExecEngines, in(s.ExecEngines, 1, 64), "1..64"},
		{"page_list_fetches_max", s.PageListFetchesMax, in(s.PageListFetchesMax, 1, 256), "1..256"},
		{"validate_reads_max", s.ValidateReadsMax, in(s.ValidateReadsMax, 1, 4096), "1..4096"},
		{"cqe_bytes", s.CQEBytes, in(s.CQEBytes, 1, 256), "1..256"},
		{"responder_bytes_per_cycle", s.ResponderBytesPerCycle, in(s.ResponderBytesPerCycle, 1, 4096), "1..4096"},
		{"tx_buffer_bytes", s.TxBufferBytes, in(s.TxBufferBytes, 4096, 1<<30), "4096..2^30"},
		{"rx_buffer_bytes", s.RxBufferBytes, in(s.RxBufferBytes, 4096, 1<<30), "4096..2^30"},
		{"moderation_cqes", s.ModerationCQEs, in(s.ModerationCQEs, 1, 1<<16), "1..65536"},
		{"moderation_time_ns", s.ModerationTimeNS, s.ModerationTimeNS <= 1_000_000_000, "0..1e9"},
	})
	if err := s.TPT.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// fieldCheck is one field's check: its JSON key, its value, whether it
// holds, and what is allowed.
type fieldCheck struct {
	field string
	v     any
	ok    bool
	want  string
}

func in[T uint32 | uint64](v, lo, hi T) bool { return v >= lo && v <= hi }

// Info is the NDK_ADAPTER_INFO this adapter reports (docs/ndk.md 1.3).
func (s Spec) Info() AdapterInfo {
	flags := AdapterRDMAReadSinkNotRequired | AdapterCQInterruptModerationSupported
	if s.ReadSinkRequired {
		flags &^= AdapterRDMAReadSinkNotRequired
	}
	if s.ExecEngines > 1 {
		flags |= AdapterMultiEngineSupported
	}
	return AdapterInfo{
		VersionMajor: 1, VersionMinor: 2,
		VendorID: 0x15B3, DeviceID: 0x5A5A, // assumed: a Mellanox-style vendor ID, a made-up device
		MaxRegistrationSizeBytes: s.MaxRegistrationSizeBytes,
		MaxWindowSizeBytes:       s.MaxWindowSizeBytes,
		FRMRPageCount:            s.FRMRPageCount,
		// assumed: the model's requests carry one SGE.
		MaxInitiatorRequestSge: 1, MaxReceiveRequestSge: 1, MaxReadRequestSge: 1,
		// assumed: 1 GiB, the default max_registration_size_bytes; no model
		// path reads it.
		MaxTransferLengthBytes: 1 << 30,
		MaxInitiatorQueueDepth: s.MaxInitiatorQueueDepth,
		MaxReceiveQueueDepth:   s.MaxReceiveQueueDepth,
		MaxCqDepth:             s.MaxCQDepth,
		// assumed: 16 outstanding RDMA Reads each way; no source gives it
		// and no model path reads it.
		MaxInboundReadLimit: 16, MaxOutboundReadLimit: 16,
		AdapterFlags:   flags,
		RdmaTechnology: RDMARoCEv2,
	}
}
