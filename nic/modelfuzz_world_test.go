package nic

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// The model-level fuzzer's world: two hosts joined by a wire, each with a
// data area of host memory (the only memory a request may write), source
// slots (the bytes Writes and Sends take), a sink MR over the data area
// (local write, RDMA read sink: where Reads and receives land), normal
// MRs, fast-register MRs and windows, and connected QP pairs. Every
// mapping is one to one (virtual = physical), so a request's bytes land
// at the addresses it names.
const (
	fzDataBase  = 0x4000_0000
	fzDataPages = 16
	fzDataBytes = fzDataPages * PageSizeBytes
	fzSrcBase   = 0x5000_0000
	fzSlots     = 32
	fzSlotBytes = 2 * PageSizeBytes
	fzDepth     = 16 // initiator and receive queue depth of every QP
	fzPairsMax  = 40 // QP pairs at most (a pair in error is replaced)
	fzFRPages   = 16 // pages every fast-register MR is initialised for
)

type fzHost struct {
	idx       int
	h         *harness
	init      []byte // the data area as first written
	srcShadow []byte // the source slots as the fuzzer wrote them
	src, sink *MR
	mrs, frs  []*fzMR
	mws       []*fzMW
	slots     [fzSlots]*fzReq // the request reading each source slot
}

// fzMR is an MR and the spans of its registrations that may stand.
type fzMR struct {
	mr     *MR
	fast   bool
	remote bool // a fast-register MR initialised with remote access
	busy   bool // a RegisterMr or DeregisterMr in flight
	spans  []*fzSpan
	qp     *fzQP // the QP of its last fast registration
}

// fzMW is a window and the spans of its binds that may stand.
type fzMW struct {
	mw    *MW
	spans []*fzSpan
	qp    *fzQP // the QP of its last bind
}

// fzQP is one end of a connection.
type fzQP struct {
	qp     *QP
	host   int
	ctx    uint64 // its QPContext
	peer   *fzQP
	init   []*fzReq // initiator requests accepted, in post order
	recv   []*fzReq // receives accepted, in post order
	deadAt int      // every request posted after this step must be cancelled
}

type fzWorld struct {
	t       testing.TB
	c       chooser
	p       *pair
	hosts   [2]*fzHost
	qps     []*fzQP // every QP end made
	pool    []*fzQP // the ends calls are posted on: pairs not known to be in error
	byCtx   map[uint64]*fzQP
	reqs    map[uint64]*fzReq
	spans   []*fzSpan
	seq     int    // the current step
	ctx     uint64 // the last request context handed out
	lastOp  string // the current step's call, for failure messages
	settled bool
}

// newFuzzWorld builds the world with adapter settings the chooser picks.
func newFuzzWorld(t testing.TB, c chooser) *fzWorld {
	sp := DefaultSpec()
	sp.RotateFastRegisterKey = c.intn(2) == 0
	sp.WQEByMMIO = c.intn(2) == 0
	sp.ExecEngines = uint32(1 + c.intn(2))
	// A Send without a receive is retried a few times, 10 µs apart, then
	// fails: with unlimited RNR retries finish would never go idle.
	sp.RNRRetry, sp.RNRTimerNS = uint32(c.intn(3)), 10_000
	// A transmit buffer of one or two packets makes Writes and Sends wait
	// for room behind one another.
	sp.TxBufferBytes = []uint64{PageSizeBytes, 2 * PageSizeBytes, 64 << 10}[c.intn(3)]
	// A receive buffer of one or two packets makes Read responses wait
	// for the requester's placements.
	sp.RxBufferBytes = []uint64{PageSizeBytes, 2 * PageSizeBytes, 64 << 10}[c.intn(3)]
	w := &fzWorld{t: t, c: c, p: newPair(t, sp), byCtx: map[uint64]*fzQP{}, reqs: map[uint64]*fzReq{}}
	for i, h := range []*harness{w.p.a, w.p.b} {
		w.hosts[i] = w.newHost(i, h)
	}
	for range 2 {
		w.newPair()
	}
	w.lastOp = "setup"
	for i := range 4 {
		w.seq++
		w.registerNormal(w.hosts[i%2], w.hosts[i%2].mrs[i/2])
	}
	w.p.env.Engine.Run()
	return w
}

// registerNormal registers m over half of the data area with remote read
// and write, as the run's first registrations.
func (w *fzWorld) registerNormal(x *fzHost, m *fzMR) {
	va, n := uint64(fzDataBase+w.c.intn(fzDataBytes/2)), uint64(fzDataBytes/2)
	call := w.seq
	st := x.h.a.RegisterMr(m.mr, []MDL{{VirtualAddress: va, ByteCount: n}}, n, MRAllowRemoteRead|MRAllowRemoteWrite, func(_ uint64, s Status) {
		require.Equal(w.t, StatusSuccess, s)
		sp := w.openSpan(x.idx, x.h.a.GetRemoteTokenFromMr(m.mr), va, va+n, rightRead|rightWrite, nil)
		sp.from, sp.done = call, w.seq
		m.spans = append(m.spans, sp)
	}, 0)
	require.Equal(w.t, StatusPending, st)
}

// newHost fills the host's memory and creates its objects.
func (w *fzWorld) newHost(i int, h *harness) *fzHost {
	x := &fzHost{idx: i, h: h, init: pattern(fzDataBytes, byte(17+i*101)), srcShadow: make([]byte, fzSlots*fzSlotBytes)}
	h.a.Mem().Write(fzDataBase, x.init)
	x.src, _ = h.register(fzSrcBase, fzSlots*fzSlotBytes, MRAllowLocalWrite)
	x.sink, _ = h.register(fzDataBase, fzDataBytes, MRAllowLocalWrite|MRRDMAReadSink)
	for range 2 {
		x.mrs = append(x.mrs, &fzMR{mr: h.normalMr()})
		remote := w.c.intn(4) != 0
		x.frs = append(x.frs, &fzMR{mr: h.frmr(fzFRPages, remote), fast: true, remote: remote})
		x.mws = append(x.mws, &fzMW{mw: h.mw()})
	}
	return x
}

// newPair creates and connects a QP on each host.
func (w *fzWorld) newPair() {
	var ends [2]*fzQP
	for i, x := range w.hosts {
		ctx := uint64(1000 + len(w.qps) + i)
		st, qp := x.h.a.CreateQP(x.h.pd, x.h.cq, ctx, fzDepth, fzDepth)
		require.Equal(w.t, StatusSuccess, st)
		ends[i] = &fzQP{qp: qp, host: i, ctx: ctx, deadAt: fzNever}
		w.byCtx[ctx] = ends[i]
	}
	require.NoError(w.t, ConnectQPs(ends[0].qp, ends[1].qp))
	ends[0].peer, ends[1].peer = ends[1], ends[0]
	w.qps = append(w.qps, ends[0], ends[1])
	w.pool = append(w.pool, ends[0], ends[1])
}

// pickQP picks a QP end of the pool, mostly; at times any end made.
func (w *fzWorld) pickQP() *fzQP {
	if w.c.intn(20) == 0 {
		return w.qps[w.c.intn(len(w.qps))]
	}
	return w.pool[w.c.intn(len(w.pool))]
}

// replaceDead takes the pairs known to be in error out of the pool and
// connects new ones in their place, up to fzPairsMax pairs.
func (w *fzWorld) replaceDead() {
	for i := 0; i+1 < len(w.pool); i += 2 {
		if w.pool[i].deadAt == fzNever && w.pool[i+1].deadAt == fzNever || len(w.qps) >= 2*fzPairsMax {
			continue
		}
		w.pool = append(w.pool[:i], w.pool[i+2:]...)
		i -= 2
		w.newPair()
	}
}

// fail stops the run at a broken rule, naming the step and its call.
func (w *fzWorld) fail(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("step %d (%s): %s", w.seq, w.lastOp, fmt.Sprintf(format, args...))
}

// step makes one call (or runs the engine, or polls), as the chooser picks.
func (w *fzWorld) step() {
	w.seq++
	defer w.trace()
	switch k := w.c.intn(100); {
	case k < 15:
		w.postWrite()
	case k < 24:
		w.postRead()
	case k < 30:
		w.postSend(false)
	case k < 32:
		w.postSend(true)
	case k < 42:
		w.postReceive()
	case k < 50:
		w.fastRegister()
	case k < 56:
		w.invalidate()
	case k < 61:
		w.bind()
	case k < 65:
		w.invalidateMw()
	case k < 69:
		w.registerMr()
	case k < 71:
		w.deregisterMr()
	case k < 72:
		w.flush()
	case k < 73:
		w.closeObject()
	case k < 88:
		w.runFor()
	default:
		w.poll()
	}
}

// trace logs the step's call with -modelfuzz.trace.
func (w *fzWorld) trace() {
	if *modelFuzzTrace {
		w.t.Logf("step %d: %s", w.seq, w.lastOp)
	}
}

// runFor advances the engine by 1 to 20 µs of simulated time.
func (w *fzWorld) runFor() {
	w.lastOp = "run"
	e := w.p.env.Engine
	e.RunUntil(e.Now() + sim.Tick(1+w.c.intn(20))*sim.US)
}

// poll takes every visible completion of both hosts.
func (w *fzWorld) poll() {
	w.lastOp = "poll"
	for i, x := range w.hosts {
		for _, r := range x.h.a.GetCQResults(x.h.cq, 1<<20) {
			if *modelFuzzTrace {
				w.t.Logf("  host %d: QP %d request %d %v %v %d B", i, r.QPContext, r.RequestContext, r.Type, r.Status, r.BytesTransferred)
			}
			w.completed(i, r)
		}
	}
	if !w.settled {
		w.replaceDead()
	}
}

// finish lets everything complete, flushes every QP so that every receive
// completes too, and checks what must hold at the end.
func (w *fzWorld) finish() {
	w.seq++
	w.lastOp = "finish"
	w.p.env.Engine.Run()
	w.poll()
	for _, q := range w.qps {
		w.hosts[q.host].h.a.Flush(q.qp)
		q.deadAt = min(q.deadAt, w.seq)
	}
	w.seq++
	w.p.env.Engine.Run()
	w.poll()
	w.settled = true
	w.checkAllCompleted()
	w.checkBytes()
}
