// Package nic is the NDK (NDKPI) provider and the NIC hardware behind it.
//
// # Vocabulary
//
// The interface's vocabulary is exactly the NDK header's
// (docs/ndk.md section 1): NTSTATUS values with their names
// (Status), NDK_MR_FLAG_* and NDK_OP_FLAG_* bit sets with the per-operation
// accepted-flag tables and the project's flag decisions (docs/ndk.md 5.2),
// NDK_OPERATION_TYPE, NDK_OBJECT_TYPE, NDK_ADAPTER_INFO (AdapterInfo) and
// NDK_RESULT_EX (Result).
//
// # Provider
//
// An Adapter (New) is one NIC on one PCIe link. Its methods have the shape
// of the NDKPI calls: CreatePD, CreateCQ, CreateQP, CreateMr,
// InitializeFastRegisterMr, FastRegister, Invalidate,
// GetRemoteTokenFromMr, GetLocalTokenFromMr, Flush, CloseObject, ArmCQ and
// GetCQResults (NdkGetCqResultsEx). Object calls return STATUS_SUCCESS
// (done, no callback), STATUS_PENDING (exactly one callback later) or an
// inline failure (no callback). Work requests never pend: success means
// posted and a CQE will follow (none for a successful SILENT_SUCCESS
// request); an inline failure changes nothing and produces no CQE, after
// the provider has indicated the queue's deferred requests (rules 13/14).
// What depends on state only the hardware sees (an MR still valid, a double
// invalidate) fails as an error completion that moves the QP to the error
// state. One path (errorstate.go) serves every cause - an error completion,
// a refusal by the QP's responder, NdkFlush: the requests that have not
// begun executing and every posted receive complete STATUS_CANCELLED in
// post order (docs/ndk.md 5.1), after the receives a message has taken; a
// request already executing has had its effect and keeps its own status.
// NdkFlush takes effect when it is called. A receive that fails its own
// check completes with an error status. All
// translation and protection state (MPT entries, MTT entries, token
// validity) lives in package mtt.
//
// # Hardware path
//
// The provider writes each WQE into the QP's SQ ring in host memory (64 B
// basic blocks; a FastRegister with at most InlinePageListEntriesMax pages
// carries its page list in the WQE, one more block per 8 entries) and rings
// an 8 B MMIO doorbell, or, for a lone WQE when WQEByMMIO is set, writes the
// WQE itself with 64 B write-combined MMIO stores. A DEFER chain rings one
// doorbell for the whole chain (docs/ndk.md 5.8).
//
// On the NIC, in NIC clock cycles, every block a sim.Ticker driven by a
// sim.TickDriver, connected by bounded sim.Ports of one cycle latency
// (back-pressure; an item moves at most one stage per cycle):
//
//	doorbell handler -> scheduler (round robin over QPs with work)
//	  -> WQE fetch (one DMA read of a batch of WQEs; none for WQE-by-MMIO)
//	  -> engine[qpn mod ExecEngines]: parse -> validate -> page-list fetch
//	     -> MTT write -> MPT update -> cache write
//	  -> completion engine (CQE DMA write; MSI-X with moderation)
//
// Each block is a type of its own, with its state, in its own file, and is
// the sim.Handler of the DMA, MMIO and timer completions it starts (no
// central dispatch); dmaQueue, mmioQueue and pendingCalls hold the data
// DMAs, host MMIO writes and object calls that wait for a resource. A
// pipeline stage is the stage shell (timing, in-order exit, statistics
// NIC.Stage.<kind>) around a stageWork; an engine is the list of its stages
// (newEngine): a new stage is a file with its stageWork, one line in that
// list and its StageSpec in Spec. A full stage whose finished head item
// will find the next queue still full does not queue the tick that finds
// it so (nor does a WQE fetch with every slot taken whose next WQE will
// find its engine's queue full): it reserves it (sim.TickDriver.WakeIdle),
// and the stall is counted at the same time unless a pop from that queue,
// or any other wake, makes it a real tick first. Once such a stage is
// stalled, a wake that cannot free that queue (a message arriving at its
// input, a completion of an item behind the head, a freed TPT slot) is
// reserved the same way (sim.WakeIdler). A stage in its accept interval,
// woken by a message it cannot take before its next accepting cycle (the
// MPT update, by default one item per four cycles, gets each Invalidate a
// cycle after its FastRegister), does not tick for it either
// (sim.QuietTicker). When a stage's accept takes the TPT's last write
// slot, the other writing stage's tick queued for that edge, which would
// find no slot for its next item, is reserved too and its stall counted
// as that tick counts it (sim.TickDriver.ReserveIdle); so is a writing
// stage's next tick that will find its output queue full and no write
// slot (WakeIdle), unless a pop or a freed slot wakes it first.
//
// Each stage has a latency and a throughput in cycles (StageSpec). The
// engines are in order: a FastRegister whose page list must be read by DMA
// holds the engine until the read returns (at most PageListFetchesMax in
// flight), which is the mechanism behind the ~1.3 M registrations/s the
// hardware reaches with DMA-fetched lists (docs/sources.md 5). The MTT entries
// are written (functionally in mtt, and to ICM by DMA through the TPT)
// before the MPT update makes the entry valid, so no access can see a half
// written translation; two requests on one MR are ordered by a hazard
// interlock at validate. Every PCIe transfer (doorbells, WQE stores and
// reads, page lists, MTT/MPT writes, CQEs, MSI-X) goes through the pcie
// model, and the TPT's ICM writes through the same DMA engine.
//
// Timing assumptions (docs/nic.md has every parameter with its source): the
// NIC clock is 1 GHz (assumed; ConnectX-6 Dx reports hca_core_clock 1000
// MHz); stage latencies of 2-8 cycles are assumed (no public figure:
// docs/sources.md 7, the pipeline clock is unpublished; 5, no FRWR, bind or
// invalidate latency is). The host's posting cores are resources (hostcpu.go):
// QP n's core builds each WQE, executes the doorbell or write-combined WQE
// stores (then the pcie model times the MMIO write, with the gaps between
// that core's own MMIO TLPs: each core is an MMIO source) and polls each CQE, each
// for an assumed time; a CQE counts as in host memory when its DMA write is
// done and is seen by the consumer once its core has polled it.
//
// Every resource that can bind a throughput meters its busy time on the
// simulation's sim.Meters (docs/nic.md, "Meters"): each pipeline block,
// the posting cores, the firmware, the responder and its buffer, the
// transmit buffers and the requester's receive buffer, the page-list reads, the WQE reads and each
// QP's fetch, the wire's directions.
//
// # Registration, windows and the remote data path
//
// NdkRegisterMr and NdkDeregisterMr run through a firmware command path
// (firmware.go: host pinning per page, a command by MMIO, fixed firmware
// time, page-list DMA read, MTT and MPT writes to ICM, MSI-X) and complete
// by callback. Memory windows are key-table entries of kind MW bound by
// Bind work requests through the same pipeline. Two adapters joined by a
// Wire carry Send/Receive/SendAndInvalidate/Read/Write between connected
// QPs as RoCEv2 packets of at most the path MTU, moved packet by packet
// (each packet's payload read, sent and placed on its own, so a long
// message's host reads, wire time and placements overlap), and the
// responder serves them at a rate from a bounded buffer the peer reserves
// room in. An outgoing Write, Send or Read response packet holds room in a
// transmit buffer (txbuffer.go; the requester's or the responder's) from
// its payload read until it has left on the wire, so a NIC whose wire is
// slower than its link reads only as far ahead of the wire as that buffer
// holds. A Read response packet is sent only when it has room in the
// requester's receive buffer (rxbuffer.go), which it holds until it is
// placed, so a requester whose link places slower than the peer reads
// stops the peer's reads instead of queueing their data. A Send that finds no receive posted meets an RNR NAK, and its QP's
// requests go again after the RNR timer (rnr.go, InfiniBand RC semantics).
// Each adapter has a HostMemory holding real bytes, and its responder
// checks every remote access through mtt's timed Translator before any
// byte moves (docs/ndk.md 5.4).
//
// Statistics (Register) are per operation type (post-to-milestone latency
// histograms for doorbell, WQE fetched, executed and CQE; throughput; PCIe
// bytes by purpose), per stage (items, occupancy, stalls) and per block.
package nic
