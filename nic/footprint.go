package nic

import (
	"math/bits"
	"unsafe"

	"github.com/nicsim/nicsim/mtt"
)

// Memory the model holds, for memory budgets (the workload loader's
// run.memory_max_bytes): computed from the model's own types, so the
// figures follow them (TestTableBytesCoversWhatNewAllocates).

// ObjectBytes are the bytes of the records the provider keeps per object
// and per queue entry.
type ObjectBytes struct {
	QP     uint64 // a QP's record
	WR     uint64 // one initiator queue entry (a WQE with its inline page list)
	RecvWR uint64 // one receive queue entry
	CQ     uint64 // a CQ's record
	CQE    uint64 // one CQ ring entry
	MR     uint64 // an MR's record
	MW     uint64 // an MW's record
	// Create is what creating an MR or MW through a firmware command
	// leaves held: the command's record, the pending call's, and their
	// indexes in the free lists and the backlog, in slices that grow by
	// doubling (so twice each).
	Create uint64
}

// Objects is the size of each record.
func Objects() ObjectBytes {
	create := 2 * (uint64(unsafe.Sizeof(fwCmd{})) + uint64(unsafe.Sizeof(pendingCall{})) + 3*uint64(unsafe.Sizeof(int(0))))
	return ObjectBytes{QP: AllocBytes(uint64(unsafe.Sizeof(QP{}))), WR: uint64(unsafe.Sizeof(wr{})), RecvWR: uint64(unsafe.Sizeof(recvWR{})),
		CQ: AllocBytes(uint64(unsafe.Sizeof(CQ{}))), CQE: uint64(unsafe.Sizeof(cqEntry{})), MR: AllocBytes(uint64(unsafe.Sizeof(MR{}))),
		MW: AllocBytes(uint64(unsafe.Sizeof(MW{}))), Create: create}
}

// AllocBytes bounds the heap one allocation of n bytes takes: Go rounds
// an object of up to 32 KiB, with its 8 B header, up to a size class at
// most a quarter larger (8192 B for 6920 B is the worst), and a larger
// one up to whole 8 KiB pages.
func AllocBytes(n uint64) uint64 {
	if n+8 <= 32<<10 {
		return (n + 8) * 5 / 4
	}
	return (n + 8 + 8191) &^ 8191
}

// QPBytes is a QP with initiator and receive queues of the given depths.
func (o ObjectBytes) QPBytes(initiatorDepth, receiveDepth uint64) uint64 {
	return o.QP + AllocBytes(initiatorDepth*o.WR) + AllocBytes(receiveDepth*o.RecvWR)
}

// CQBytes is a CQ of depth entries.
func (o ObjectBytes) CQBytes(depth uint64) uint64 { return o.CQ + AllocBytes(depth*o.CQE) }

// TableBytes is the most memory an adapter New builds from spec holds
// before any object is created: its translation unit
// (spec.TPT.TableBytes), the hazard scoreboard (an entry per key), every
// pipeline stage's in-flight records and input queue (on every engine),
// and the WQE fetch slots; and the payloads its two transmit buffers
// (Spec.TxBufferBytes each) and its receive buffer (Spec.RxBufferBytes)
// hold at most, allocated as their packets are read or arrive.
func TableBytes(spec Spec) uint64 {
	b := spec.TPT.TableBytes() + uint64(spec.TPT.KeyTableEntriesMax)*uint64(unsafe.Sizeof(hazard{}))
	b += stageBytes(spec.Doorbell, 0, 0)
	req := uint64(unsafe.Sizeof(mtt.Request{}))
	perEngine := stageBytes(spec.Parse, 0, 0) + stageBytes(spec.Validation, uint64(spec.ValidateReadsMax), req) +
		stageBytes(spec.PageList, uint64(spec.PageListFetchesMax)+1, 0) + stageBytes(spec.MTTWrite, 0, 0) +
		stageBytes(spec.MPTUpdate, 0, 0) + stageBytes(spec.CacheWrite, 0, 0) + ringSlots(uint64(spec.Completion.QueueDepth))*portSlotBytes
	b += uint64(spec.ExecEngines) * perEngine
	b += uint64(spec.WQEFetchOutstandingMax) * (uint64(unsafe.Sizeof(fetchSlot{})) + 4)
	b += ringSlots(uint64(spec.Scheduler.QueueDepth)) * (uint64(unsafe.Sizeof(fetchReq{})) + 16)
	return b + 2*spec.TxBufferBytes + spec.RxBufferBytes
}

// portSlotBytes bounds one entry of a stage's input queue (an item and its
// arrival time).
const portSlotBytes = uint64(unsafe.Sizeof(item{})) + 16

// stageBytes is one stage: its in-flight records (StageSpec.depth, at
// least depthMin; extra bytes each) and its queue,
// each a ring of a power of two of slots.
func stageBytes(s StageSpec, depthMin, extra uint64) uint64 {
	return ringSlots(s.depth(depthMin))*(uint64(unsafe.Sizeof(inflight{}))+extra) + ringSlots(uint64(s.QueueDepth))*portSlotBytes
}

// ringSlots is the slots of a ring that holds n (at least 1): the smallest
// power of two at least n (stage.fl, sim.Port).
func ringSlots(n uint64) uint64 { return 1 << bits.Len64(n-1) }

// MetersMax bounds the meters (sim.Meter) an adapter of spec, its PCIe
// link and its translation unit register, each holding a busy time per
// interval of a run's window: two per posting core (its time and its
// MMIO issue path), per QP up to
// qpMetersMax, per stage of every engine (and its page-list fetches and
// the validate and page-list stages' read blocking), and
// at most 48 for the other blocks, the link and the caches
// (TestMetersMaxCoversTheModelsMeters in workloads/traffic).
func MetersMax(spec Spec) uint64 {
	return 2*uint64(spec.HostCores) + qpMetersMax + 9*uint64(spec.ExecEngines) + 48
}

// The QP record is 320 B and a work request's 192 B, whole cache lines
// (their comments): a field added must keep them so, or say otherwise.
var (
	_ = [unsafe.Sizeof(QP{}) - 320]struct{}{}
	_ = [320 - unsafe.Sizeof(QP{})]struct{}{}
	_ = [unsafe.Sizeof(wr{}) - 192]struct{}{}
	_ = [192 - unsafe.Sizeof(wr{})]struct{}{}
)

// A CQE slot is 72 B: writeCQE sets each of its fields in place, so a
// field added to cqEntry fails to build here until writeCQE sets it too
// and this size follows.
var (
	_ = [unsafe.Sizeof(cqEntry{}) - 72]struct{}{}
	_ = [72 - unsafe.Sizeof(cqEntry{})]struct{}{}
)
