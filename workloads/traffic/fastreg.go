package traffic

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// fast_register_invalidate: one operation is the chain NdkFastRegister of a
// fast-register MR, then NdkInvalidate of the same MR on the same QP,
// through the NIC's send-queue pipeline (docs/nic.md). The operation
// completes when the Invalidate's CQE is visible in host memory; its
// latency runs from arrival to then. The FastRegister's and the
// Invalidate's own latencies (post to CQE) are reported as parts.
//
// Objects (set up before warm-up, pending calls run to completion): one PD
// per model, one CQ per generator, one connected QP per stream with
// 2 x outstanding initiator slots, and one fast-register MR per operation
// slot (streams x outstanding), initialised for mr_pages pages.
//
// The consumer spins on the CQ (CQ.SetVisibleHook + PollCQ, no allocation
// per operation). Without DEFER chains an operation's WRs are posted when
// it starts; with them, in a zero-delay event after the operations of one
// instant have started. With defer_chain > 1 the
// consumer holds a QP's started operations until it has defer_chain WRs
// for it or the QP has nothing in flight (so no completion would come to
// add more), then posts them with DEFER on all but every defer_chain-th WR
// and the last: the doorbell rings once per chain and never waits for a WR
// that is not coming. A post that fails inline stops the run (Model.Fail):
// nothing was posted, so a closed loop would retry it forever at one
// instant.

// frOp is the state of one operation slot.
type frOp struct {
	wrPair
	mr    *nic.MR
	pages uint32
}

type frInvSource struct {
	m        *Model
	a        *nic.Adapter
	p        *workloads.FRInvParams
	rng      *rand.Rand
	done     Done
	qps      []*nic.QP
	cq       *nic.CQ
	ops      []frOp
	addrs    []uint64 // page addresses, the first n used by an n-page operation
	frFlags  nic.OpFlags
	pending  [][]uint64 // per stream: operations started, WRs not yet posted
	dirty    []int      // streams with pending operations, in order of first start
	held     []int      // spare list for dirty
	inflight []int      // per stream: operations posted, not yet completed
	perQP    uint64     // operation slots per stream (outstanding)
	flushEv  bool
	buf      [64]nic.Result
	lat      pairLat // fast_register and invalidate
}

// frPageBase is where the pages of fast-registered MRs are (adapter
// logical addresses).
const frPageBase = 0x40_0000_0000

func newFRInvSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*workloads.FRInvParams)
	s := &frInvSource{m: m, a: m.NIC, lat: pairLat{first: nic.OpFastRegister}, p: p, rng: rng, ops: make([]frOp, g.Streams*g.Outstanding),
		pending: make([][]uint64, g.Streams), inflight: make([]int, g.Streams), perQP: uint64(g.Outstanding),
		frFlags: flagsOf(p.Rights, opRightFlags)}
	if p.SilentSuccess {
		s.frFlags |= nic.OpSilentSuccess
	}
	mrPages := p.MRPagesOrLargest()
	s.addrs = make([]uint64, mrPages)
	for i := range s.addrs {
		s.addrs[i] = frPageBase + uint64(i)*3*nic.PageSizeBytes // page-aligned, not contiguous
	}
	pd, err := m.pd()
	if err != nil {
		return nil, err
	}
	if s.cq, s.qps, err = chainQPs(m, pd, g, s); err != nil {
		return nil, err
	}
	if err := s.createMRs(pd, mrPages); err != nil {
		return nil, err
	}
	return s, nil
}

// createMRs creates the fast-register MR of every operation slot and
// initialises it for mrPages pages, then runs pending calls (firmware
// commands, MPT writes) to completion: setup ends with the last one. At most
// setupWindow calls are pending at once; more are made as they complete.
func (s *frInvSource) createMRs(pd *nic.PD, mrPages uint32) error {
	su := &setup{m: s.m, stopAtLast: true}
	if err := su.issueEach(len(s.ops), func(i int) error { return s.createMR(su, pd, i, mrPages) }); err != nil {
		return err
	}
	return su.run()
}

// createMR creates the MR of slot i and, once it exists, initialises it.
func (s *frInvSource) createMR(su *setup, pd *nic.PD, i int, mrPages uint32) error {
	init := func() {
		su.pend(func(done nic.RequestCompletion) nic.Status {
			return s.a.InitializeFastRegisterMr(s.ops[i].mr, mrPages, s.p.RemoteAccess, done, uint64(i))
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkInitializeFastRegisterMr(%d pages) completed %v", mrPages, st)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkInitializeFastRegisterMr(%d pages) of MR %d: %v", mrPages, i+1, st)
		})
	}
	return su.createMR(s.a, pd, true, uint64(i), func(mr *nic.MR) { s.ops[i].mr = mr; init() },
		fmt.Sprintf("NdkCreateMr %d of %d", i+1, len(s.ops)))
}

// Start takes one operation: its WRs are posted at once without DEFER
// chains, else in the flush event of this instant.
func (s *frInvSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.pages = uint32(s.p.Pages.Sample(s.rng))
	o.reason = ""
	op.Units = uint64(o.pages)
	if s.p.DeferChain == 1 {
		s.post(now, op.Stream, op.Index, 0, 0)
		return nil
	}
	if len(s.pending[op.Stream]) == 0 {
		s.dirty = append(s.dirty, op.Stream)
	}
	s.pending[op.Stream] = append(s.pending[op.Stream], op.Index)
	if !s.flushEv {
		s.flushEv = true
		s.m.Env.Engine.After(0, sim.PrioDefault, frFlush{s}, 0)
	}
	return nil
}

type frFlush struct{ s *frInvSource }

func (f frFlush) Handle(now sim.Tick, _ uint64) { f.s.flush(now) }

// flush posts the WRs of every operation started in this instant: per QP,
// FastRegister then Invalidate of each, DEFER on all but every
// defer_chain-th WR and the QP's last.
func (s *frInvSource) flush(now sim.Tick) {
	s.flushEv = false
	chain := s.p.DeferChain
	held := s.held[:0]
	for _, q := range s.dirty {
		ops := s.pending[q]
		if 2*len(ops) < chain && s.inflight[q] > 0 {
			held = append(held, q) // wait for a longer chain: a completion will come
			continue
		}
		total := 2 * len(ops)
		flags := func(j int) nic.OpFlags {
			if (j+1)%chain != 0 && j != total-1 {
				return nic.OpDefer
			}
			return 0
		}
		for k, idx := range ops {
			if !s.post(now, q, idx, flags(2*k), flags(2*k+1)) {
				return
			}
		}
		s.pending[q] = ops[:0]
	}
	s.held, s.dirty = s.dirty[:0], held
}

// post posts operation idx on stream q: its FastRegister with frFlag and
// its Invalidate with invFlag (DEFER or not). False when a post failed
// inline (the run stops).
func (s *frInvSource) post(now sim.Tick, q int, idx uint64, frFlag, invFlag nic.OpFlags) bool {
	qp := s.qps[q]
	o := &s.ops[idx]
	o.firstPosted = now
	s.inflight[q]++
	n := uint64(o.pages)
	if st := s.a.FastRegister(qp, idx, o.mr, s.addrs[:n], 0, n*nic.PageSizeBytes, 0, s.frFlags|frFlag); st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkFastRegister", st))
		return false
	}
	o.invPosted = now
	if st := s.a.Invalidate(qp, idx, o.mr, invFlag); st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkInvalidate", st))
		return false
	}
	return true
}

// Handle is the CQ's visible hook: a consumer spinning on the CQ.
func (s *frInvSource) Handle(now sim.Tick, _ uint64) { drainCQ(now, s.a, s.cq, s.buf[:], s) }

func (s *frInvSource) result(now sim.Tick, r *nic.Result) bool {
	idx := r.RequestContext
	if s.lat.cqe(s.m, now, r, &s.ops[idx].wrPair) {
		s.finish(now, idx)
	}
	return true
}

// finish completes operation idx (a failure when it has a reason). A QP
// whose chain was held for want of WRs gets its flush now if this was its
// last operation in flight.
func (s *frInvSource) finish(now sim.Tick, idx uint64) {
	q := idx / s.perQP
	s.inflight[q]--
	if len(s.pending[q]) > 0 && !s.flushEv {
		s.flushEv = true
		s.m.Env.Engine.After(0, sim.PrioDefault, frFlush{s}, 0)
	}
	finish(s.done, now, idx, s.ops[idx].reason)
}

// Parts reports the FastRegister and Invalidate latencies (post to CQE,
// successful requests posted after warm-up).
func (s *frInvSource) Parts() []Part {
	return s.lat.parts("fast_register")
}

// Figure: FastRegister moves no payload; it registers pages.
func (s *frInvSource) Figure() (string, string) { return "registered_pages", "Mpages/s" }

// Scope: host a only.
func (s *frInvSource) Scope() Scope { return ScopeLocalNIC }

// QPs: one per stream, on host a.
func (s *frInvSource) QPs() (a, b []*nic.QP) { return s.qps, nil }

func init() { RegisterSource("fast_register_invalidate", newFRInvSource) }
