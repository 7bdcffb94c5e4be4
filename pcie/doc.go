// Package pcie models one PCIe link between a host and the NIC at byte
// accuracy, the host's root complex and memory as the link sees them, the
// CPU's MMIO writes and the NIC's DMA engine. Facts come from
// docs/sources.md sections 1 and 11; docs/pcie.md lists every parameter
// and the known deviations.
//
// Timing model:
//
//   - Each direction (Up: NIC->host, Down: host->NIC) is a transmitter
//     that puts one burst at a time on the wire: the SKP ordered sets and
//     DLLPs that fell due, then at most one TLP. A burst of n bytes takes
//     exactly n byte times (sim.Serializer, exact ps/byte for 8b/10b and
//     128b/130b) and reaches the far end LinkLatencyNS later.
//   - TLP wire size = payload + 8 B framing/sequence/LCRC + 4 B common
//     header + 12 B (4DW) or 8 B (3DW) for MWr/MRd, 8 B for CplD, + 4 B
//     ECRC if enabled. A DMA request uses the 4DW form at or above 4 GiB
//     (with Addr64) and the 3DW form below it, as the spec requires.
//   - DLLP accounting (the rule that makes simulation and byte model count
//     the same thing): a transmitter sends one 8 B ACK DLLP and one 8 B
//     UpdateFC DLLP for every A bytes of its own link time (A from the
//     spec's recommended tables by generation, width and MPS), and one 4 B
//     SKP for every 1538 bytes. These acknowledge and return credits for
//     the TLPs of the opposite direction. A transmitter with nothing else to
//     send that owes an ACK or an UpdateFC (a TLP arrived from the other
//     side) sends it A byte times later. A saturated direction therefore
//     spends exactly 16/A + 4/1538 of its time on DLLPs and SKPs, which is
//     the share docs/sources.md 11 deducts.
//   - A burst's arrival is an event unless it is quiet: it changes nothing
//     at the far end (an UpdateFC, an ACK or SKP, a write-combined MMIO
//     line before the write's last) and only the bookkeeping of the peer
//     transmitter while that one is busy (owed ACKs and UpdateFCs, credits
//     it reads when its burst ends). A quiet arrival's place in the order
//     is reserved (sim.Engine.Reserve) and it is applied once that place
//     has passed, before the peer's next end of burst; should the peer
//     fall idle first, the quiet arrivals still to come become events.
//   - Flow control: the transmitter consumes header and data credits of
//     the receiver (P, NP, Cpl) when a TLP starts; the receiver returns
//     them in an UpdateFC on the opposite direction; a TLP without credits
//     waits (never dropped). Ordering: posted writes stay in order; an MRd
//     or CplD never passes an older posted write; a posted write may pass a
//     stalled read or completion (PCIe ordering rules, no relaxed ordering).
//   - DMA engine (engine.go), in cycles of the NIC clock New is given: a
//     read path and a write path, each a bounded request queue and a number
//     of channels. A channel starts on a clock edge and works on one
//     request at a time: RequestCycles before its first TLP is ready, then
//     TLPsPerCycle TLPs a cycle. MWr are cut at MPS and MRd at MRRS on
//     aligned boundaries; each MRd holds a tag until its last completion
//     byte arrives. A channel's end for which no request waits is not an
//     event: its place in the order is reserved (sim.Engine.Reserve) and
//     the channel counts as free from then on (its meter's level drops at
//     that time) when the path or the meter is next used; a request that
//     queues for a channel makes the reserved ends events again.
//   - Host (host.go, hostmem.go): answers an MRd with CplDs split at MPS
//     or RCB, in address order, each sent once its data is ready. An MRd's
//     data starts to be ready a latency after it arrives, drawn per MRd
//     from a bounded distribution fitted to pcie-bench (min, median, p99.9,
//     max) with LLC-miss and remote-NUMA additions, each from its own
//     seeded stream (sim.Stream); then it streams at the per-byte rate. The
//     latency applies per MRd, so a long read moves at the link's rate
//     when enough tags are free. A read of bytes a write is still making
//     visible waits for them.
//   - Posted writes are visible to a polling CPU a fixed delay after their
//     MWr arrives, in order; DMA.Write's done runs then, and an MSI-X is
//     delivered no earlier than the writes before it are visible.
//     Without the IOMMU that time depends only on the MWr's arrival time
//     and the writes before it, so the host works it out, and schedules
//     the visibility event, when the MWr leaves the NIC (its arrival then
//     only owes an ACK and returns credits: quiet), unless a TLP before it
//     is still to be taken on arrival. The visibility event is queued a
//     link latency sooner, for the same time: it can only change places
//     with another event for the same picosecond and priority queued in
//     between.
//   - Optional IOMMU: an LRU IOTLB of IOTLBEntries pages; a miss waits for
//     one of IOMMUWalkers walkers for IOMMUWalkNS.
//   - Meters (meters.go): each direction, the tags, every finite credit
//     pool, the DMA read and write channels, each MMIO source's issue path
//     (AddMMIOSource) and the IOMMU walkers feed a sim.Meter on env.Meters.
//
// Hot paths allocate nothing in steady state and schedule events through
// sim.Handler values with an arg word (no closures).
package pcie
