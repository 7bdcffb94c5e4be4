package traffic

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// bind_invalidate: one operation is the chain NdkBind of a memory window to
// part of a registered normal MR, then NdkInvalidate of the window, on one
// QP.
//
// Objects (set up before warm-up, pending calls run to completion): one PD
// per model, one CQ per generator, one connected QP per stream with
// 2 x outstanding initiator slots, one normal MR per stream registered with
// NdkRegisterMr (local write, remote read and write; mr_pages pages; the
// firmware callback awaited) and one window (NdkCreateMw) per operation
// slot. WRs are posted from Start (no DEFER); the consumer spins on the CQ.

type bindOp struct {
	wrPair
	mw *nic.MW
}

type bindSource struct {
	m       *Model
	a       *nic.Adapter
	p       *workloads.BindParams
	rng     *rand.Rand
	done    Done
	qps     []*nic.QP
	mrs     []*nic.MR
	cq      *nic.CQ
	ops     []bindOp
	perQP   uint64
	flags   nic.OpFlags
	mrBytes uint64
	buf     [64]nic.Result
	lat     pairLat // bind and invalidate
}

// bindPageBase is where the bind MRs' pages start (one MR after the other).
const bindPageBase = 0x60_0000_0000

func newBindSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*workloads.BindParams)
	s := &bindSource{m: m, a: m.NIC, lat: pairLat{first: nic.OpBind}, p: p, rng: rng, ops: make([]bindOp, g.Streams*g.Outstanding),
		mrs: make([]*nic.MR, g.Streams), perQP: uint64(g.Outstanding), mrBytes: uint64(p.MRPages) * nic.PageSizeBytes,
		flags: flagsOf(p.Rights, opRightFlags)}
	pd, err := m.pd()
	if err != nil {
		return nil, err
	}
	if s.cq, s.qps, err = chainQPs(m, pd, g, s); err != nil {
		return nil, err
	}
	su := &setup{m: m}
	if err := s.registerMRs(su, pd, g.Streams); err != nil {
		return nil, err
	}
	if err := s.createMWs(su, pd); err != nil {
		return nil, err
	}
	if err := su.run(); err != nil {
		return nil, err
	}
	return s, nil
}

// registerMRs creates and registers the MR of each of n streams, one
// after the other in host memory.
func (s *bindSource) registerMRs(su *setup, pd *nic.PD, n int) error {
	flags := nic.MRAllowLocalWrite | nic.MRAllowRemoteRead | nic.MRAllowRemoteWrite
	return su.normalMRs(pd, n, func(i int, mr *nic.MR) {
		s.mrs[i] = mr
		va := bindPageBase + uint64(i)*s.mrBytes
		su.pend(func(done nic.RequestCompletion) nic.Status {
			return s.a.RegisterMr(mr, []nic.MDL{{VirtualAddress: va, ByteCount: s.mrBytes}}, s.mrBytes, flags, done, uint64(i))
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkRegisterMr(%d pages) completed %v", s.p.MRPages, st)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkRegisterMr(%d pages) of MR %d: %v", s.p.MRPages, i+1, st)
		})
	})
}

// createMWs creates the window of every operation slot.
func (s *bindSource) createMWs(su *setup, pd *nic.PD) error {
	return su.issueEach(len(s.ops), func(i int) error {
		su.waiting++
		st, mw := s.a.CreateMw(pd, func(_ uint64, st nic.Status, mw *nic.MW) {
			defer su.release()
			if st != nic.StatusSuccess {
				su.fail(fmt.Errorf("NdkCreateMw completed %v", st))
				return
			}
			s.ops[i].mw = mw
		}, uint64(i))
		return su.created(st, func() { s.ops[i].mw = mw }, fmt.Sprintf("NdkCreateMw %d of %d", i+1, len(s.ops)))
	})
}

// Start posts the Bind and the Invalidate of one operation.
func (s *bindSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.reason = ""
	length := s.p.WindowBytes.Sample(s.rng)
	op.Units = 1
	mr := s.mrs[op.Stream]
	va := bindPageBase + uint64(op.Stream)*s.mrBytes
	if room := s.mrBytes - length; room > 0 {
		va += s.rng.Uint64N(room+1) &^ 63
	}
	qp := s.qps[op.Stream]
	o.firstPosted = now
	if st := s.a.Bind(qp, op.Index, mr, o.mw, va, length, s.flags); st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkBind", st))
		return nil
	}
	o.invPosted = now
	if st := s.a.InvalidateMw(qp, op.Index, o.mw, 0); st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkInvalidate", st))
	}
	return nil
}

// Handle is the CQ's visible hook: a consumer spinning on the CQ.
func (s *bindSource) Handle(now sim.Tick, _ uint64) { drainCQ(now, s.a, s.cq, s.buf[:], s) }

func (s *bindSource) result(now sim.Tick, r *nic.Result) bool {
	idx := r.RequestContext
	if o := &s.ops[idx]; s.lat.cqe(s.m, now, r, &o.wrPair) {
		finish(s.done, now, idx, o.reason)
	}
	return true
}

// Parts reports the Bind and Invalidate latencies (post to CQE, successful
// requests posted after warm-up).
func (s *bindSource) Parts() []Part {
	return s.lat.parts("bind")
}

// Figure: a Bind moves no payload; it binds a window.
func (s *bindSource) Figure() (string, string) { return "bound_windows", "M/s" }

// Scope: host a only.
func (s *bindSource) Scope() Scope { return ScopeLocalNIC }

// QPs: one per stream, on host a.
func (s *bindSource) QPs() (a, b []*nic.QP) { return s.qps, nil }

func init() { RegisterSource("bind_invalidate", newBindSource) }
