package nic

import (
	"fmt"
	"math/bits"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// QP is an NDK_QP. Its initiator queue (SQ) is a ring in host memory written
// by the provider; the NIC-side fields are the QP context the NIC holds.
type QP struct {
	// NIC side (QP context): what the pipeline's stages and the completion
	// engine read on every request first, in the record's first 64 B.
	slots        []wr
	slotMask     uint64 // len(slots)-1: the slots are a power of two, at least depth
	nicCompleted uint64 // next WR the completion engine retires
	fetchIdx     uint64 // next WR to fetch
	errFrom      uint64 // the error state cancels requests from this post index on
	num          uint32
	engine       uint32
	err          bool // error state (docs/ndk.md 5.1) or flushed
	inDrain      bool
	fetchBusy    bool
	inSched      bool
	readsOut     uint32 // outstanding RDMA Reads (READ_FENCE, rule 6)
	cq           *CQ    // initiator CQ
	ctx          uint64
	nicPI        uint64     // producer index the NIC has seen
	fetchMeter   *sim.Meter // the QP's one fetch read, until its WQEs are on the NIC; nil beyond qpMetersMax
	closer

	// Provider (host) side.
	posted     uint64 // WRs accepted
	retired    uint64 // WRs whose slot the consumer got back (docs/ndk.md §5.7)
	rung       uint64 // WRs indicated to the NIC (doorbell or WQE-by-MMIO issued)
	blocks     uint64 // 64 B basic blocks produced in the SQ ring
	ringBlocks uint64 // ring size in basic blocks
	sqAddr     uint64 // SQ ring
	plAddr     uint64 // page-list buffers, one per slot
	plStride   uint64

	a         *Adapter
	pd        *PD
	rcq       *CQ    // receive CQ (the same as cq unless CreateQPWithCQs says otherwise)
	depth     uint32 // initiator queue depth (WRs)
	rqDepth   uint32
	core      uint32 // host core that posts and polls (num mod HostCores)
	connected bool

	// Connection and receive queue.
	hasPeer        bool
	peer           uint32 // the connected QP's number on the other adapter
	rq             []recvWR
	rqHead, rqTail uint64
	rqTaken        uint32 // receives taken by a message whose completion is not written yet

	// 320 B in all: the allocator places records of that size on 64 B
	// boundaries, so the first 64 B above are one cache line.
	_ [32]byte
}

// qpMetersMax is how many QPs of an adapter get a meter of their own (the
// scheduler fetches one batch of a QP's WQEs at a time, so one QP's fetches
// can bind its throughput, docs/sources.md 2: one QP is coupled to one
// processing unit). Bounded so that thousands of QPs do not cost a time
// series each.
const qpMetersMax = 64

// setFetching marks the QP's fetch in flight or done (its last WQE handed
// to the engine), at now.
func (q *QP) setFetching(now sim.Tick, busy bool) {
	q.fetchBusy = busy
	q.meterFetchWait(now)
}

// meterFetchWait tells the QP's Fetch meter whether WRs the doorbell made
// known wait for the QP's fetch in flight (one fetch per QP).
func (q *QP) meterFetchWait(now sim.Tick) {
	if q.fetchMeter != nil {
		q.fetchMeter.Waits(now, q.fetchBusy && q.fetchIdx < q.nicPI)
	}
}

// fetchReading meters the QP's fetch read from its issue until its WQEs
// are on the NIC. The wait before it, for the scheduler and a slot of the
// WQE fetch engine, is theirs (NIC.Scheduler, NIC.WQEFetch.Reads); the
// wait for room in the engine after it is the engine's back-pressure.
func (q *QP) fetchReading(now sim.Tick, reading bool) {
	if q.fetchMeter != nil {
		v := uint64(0)
		if reading {
			v = 1
		}
		q.fetchMeter.Set(now, v)
	}
}

// Num is the QP number.
func (q *QP) Num() uint32 { return q.num }

// Connect marks the QP connected without a peer: enough for FastRegister,
// Bind and Invalidate. Send, Read and Write need a peer on the other end of
// a Wire (ConnectQPs); there are no connectors.
func (q *QP) Connect() { q.connected = true }

// Connected reports the connection state.
func (q *QP) Connected() bool { return q.connected }

// Outstanding is the number of SQ slots in use (posted, not yet retired).
func (q *QP) Outstanding() int { return int(q.posted - q.retired) }

// slot is the record of WR i. At most depth WRs are outstanding, so
// the outstanding ones have distinct slots in a ring of at least depth;
// a power of two finds them with a mask. The record is the simulator's:
// in host memory (the page-list buffers) a WR's place is its index
// modulo depth.
func (q *QP) slot(i uint64) *wr { return &q.slots[i&q.slotMask] }

// slotRing is the number of slots of a queue of depth WRs: the smallest
// power of two at least depth.
func slotRing(depth uint32) int { return 1 << bits.Len32(depth-1) }

// full reports whether every SQ slot is in use (5.7: NO_MORE_ENTRIES).
func (q *QP) full() bool { return q.posted-q.retired >= uint64(q.depth) }

// wr is one work request as it sits in the SQ ring (host memory) together
// with its progress through the NIC. The NIC reads the request fields only
// after the WQE has been fetched (or arrived by MMIO), so keeping them in
// one record is functionally the same as separate host and NIC copies.
type wr struct {
	// The fields the stages and the completion engine test on every
	// request, together in the record's first 64 B (192 B in all: three
	// cache lines).
	op          OpType
	flags       OpFlags
	status      Status
	tok         mtt.Token // the entry's token as the request expects it
	kind        opKind
	rotate      bool // FastRegister: give the entry a new key
	skip        bool // error or cancelled: no effect stages
	nicDone     bool
	awaitRemote bool // waiting for the peer's answer
	pipeDone    bool // left the pipeline while waiting for the answer
	inline      bool // page list carried in the WQE
	mmio        bool // arrived by WQE-by-MMIO
	readyAt     sim.Tick

	tPost, tDoorbell, tFetched, tExec sim.Tick

	// The registration a FastRegister, Bind or Invalidate makes (a Read
	// keeps its sink's pages in pages and fbo while its response arrives).
	ctx    uint64
	mr     *MR
	mw     *MW // Bind, Invalidate of a window
	baseVA uint64
	length uint64
	fbo    uint64
	npages uint32
	blocks uint32 // 64 B basic blocks of the WQE
	rights mtt.Rights
	inv    bool // SendAndInvalidate
	held   bool // FastRegister, Bind: what its post set aside, until it settles (settleWR)
	qpn    uint32
	pages  []uint64
	block  uint64 // first basic block (monotonic)

	// Send, Read, Write.
	sge       SGE
	remoteVA  uint64
	remoteTok uint32
	segsLeft  uint32 // Read: packets of its response not yet placed or dropped
}

// CreateQP is NdkCreateQp with one CQ for both queues: a QP of pd whose
// initiator and receive completions go to cq (CreateQPWithCQs).
func (a *Adapter) CreateQP(pd *PD, cq *CQ, ctx uint64, initiatorDepth, receiveDepth uint32) (Status, *QP) {
	return a.CreateQPWithCQs(pd, cq, cq, ctx, initiatorDepth, receiveDepth)
}

// CreateQPWithCQs is NdkCreateQp: a QP of pd whose receive completions go
// to receiveCQ and initiator completions to initiatorCQ (the CQs may be the
// same), with the given queue depths; ctx is returned as QPContext in its
// results. Depths beyond NDK_ADAPTER_INFO are STATUS_INVALID_PARAMETER
// (rule 9). The QP starts unconnected. It completes inline.
func (a *Adapter) CreateQPWithCQs(pd *PD, receiveCQ, initiatorCQ *CQ, ctx uint64, initiatorDepth, receiveDepth uint32) (Status, *QP) {
	cq, rcq := initiatorCQ, receiveCQ
	if pd == nil || pd.closed || cq == nil || cq.closed || rcq == nil || rcq.closed {
		return StatusInvalidHandle, nil
	}
	if initiatorDepth == 0 || initiatorDepth > a.info.MaxInitiatorQueueDepth || receiveDepth > a.info.MaxReceiveQueueDepth {
		return StatusInvalidParameter, nil
	}
	if uint32(len(a.qps)) >= a.spec.QPsMax {
		return StatusInsufficientResources, nil
	}
	qp := &QP{a: a, num: uint32(len(a.qps)), ctx: ctx, pd: pd, cq: cq, rcq: rcq, depth: initiatorDepth, rqDepth: receiveDepth,
		engine: uint32(len(a.qps)) % a.spec.ExecEngines, core: uint32(len(a.qps)) % a.spec.HostCores, slots: make([]wr, slotRing(initiatorDepth))}
	qp.slotMask = uint64(len(qp.slots) - 1)
	if qp.num < qpMetersMax {
		qp.fetchMeter = a.meter(fmt.Sprintf("%s.QP[%d].Fetch", a.name, qp.num), "fetches", 1)
		qp.fetchMeter.TrackWaits()
	}
	maxBlocks := 1 + (a.spec.InlinePageListEntriesMax*8+a.spec.WQEBytes-1)/a.spec.WQEBytes
	qp.ringBlocks = uint64(initiatorDepth) * uint64(maxBlocks)
	qp.sqAddr = a.host.alloc(qp.ringBlocks * uint64(a.spec.WQEBytes))
	qp.plStride = uint64(a.spec.FRMRPageCount) * 8
	qp.plAddr = a.host.alloc(uint64(initiatorDepth) * qp.plStride)
	a.qps = append(a.qps, qp)
	pd.children++
	cq.qps++
	if rcq != cq {
		rcq.qps++
	}
	return StatusSuccess, qp
}
