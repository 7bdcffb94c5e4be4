package traffic

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// fr_write_send_inv: the two-host chain fast_register -> rdma_write ->
// send_and_invalidate, driven from one simulation. Host b fast-registers
// an FR MR of pages pages with remote write (NdkFastRegister on its QP);
// on that CQE host a RDMA-Writes size_bytes into it under the MR's remote
// token (b.GetRemoteTokenFromMr: the token b would hand a in a message);
// on the Write's CQE host a posts a zero-length SendAndInvalidate of the
// token, which consumes one of the receives b keeps posted and
// invalidates the MR. The operation completes with the Send's CQE on a;
// parts fast_register, write and send_and_invalidate are each request's
// post-to-CQE latency. Setup: per generator a CQ on each host, streams
// connected QP pairs, one FR MR on b per operation slot (initialised for
// the largest pages, remote access), a local MR on a, outstanding receives
// per QP on b.

type chainOp struct {
	mr                 *nic.MR
	va                 uint64
	bytes              uint32
	tok                uint32
	frAt, wrAt, sendAt sim.Tick
}

type chainSource struct {
	m    *Model
	p    *workloads.ChainParams
	rng  *rand.Rand
	done Done
	hostPairs
	local                *nic.MR
	localVA              uint64
	ltok                 uint32
	ops                  []chainOp
	pages                []uint64 // per slot: its pages (maxPages each)
	maxPages             uint64
	perQP                uint64
	buf                  [64]nic.Result
	frLat, wrLat, invLat sim.Histogram
}

func newChainSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	localVA, remVA, err := m.remoteWindow(g)
	if err != nil {
		return nil, err
	}
	p := g.Params.(*workloads.ChainParams)
	n := g.Streams * g.Outstanding
	s := &chainSource{m: m, p: p, rng: rng, ops: make([]chainOp, n), perQP: uint64(g.Outstanding), maxPages: p.Pages.Largest(),
		localVA: localVA}
	s.hostPairs, err = twoHostPairs(m, g.Streams, uint32(2*n),
		uint32(g.Outstanding), uint32(g.Outstanding), uint32(g.Outstanding), s, chainHookB{s})
	if err != nil {
		return nil, err
	}
	s.pages = make([]uint64, uint64(n)*s.maxPages)
	for i := range s.pages {
		s.pages[i] = remVA + uint64(i)*nic.PageSizeBytes
	}
	su := &setup{m: m}
	if err := su.registerOne(m.NIC, m.nicPD, s.localVA, pageRound(p.SizeBytes.Largest()), nic.MRAllowLocalWrite, &s.local); err != nil {
		return nil, err
	}
	if err := su.issueEach(len(s.ops), func(i int) error { return s.createMR(su, i) }); err != nil {
		return nil, err
	}
	if err := su.run(); err != nil {
		return nil, err
	}
	s.ltok = m.NIC.GetLocalTokenFromMr(s.local)
	for _, qb := range s.qb {
		for j := 0; j < g.Outstanding; j++ {
			if st := m.B.Receive(qb, 0, nic.SGE{}); st != nic.StatusSuccess {
				return nil, fmt.Errorf("NdkReceive on host b: %v", st)
			}
		}
	}
	return s, nil
}

// createMR creates the FR MR of slot i on host b and, once it exists,
// initialises it for the largest pages with remote access.
func (s *chainSource) createMR(su *setup, i int) error {
	b := s.m.B
	initFR := func(mr *nic.MR) {
		s.ops[i].mr = mr
		su.pend(func(done nic.RequestCompletion) nic.Status {
			return b.InitializeFastRegisterMr(mr, uint32(s.maxPages), true, done, 0)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkInitializeFastRegisterMr completed %v", st)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkInitializeFastRegisterMr(%d pages): %v", s.maxPages, st)
		})
	}
	return su.createMR(b, s.m.bPD, true, 0, initFR, fmt.Sprintf("NdkCreateMr %d of %d on host b", i+1, len(s.ops)))
}

// Start posts the chain's FastRegister on host b.
func (s *chainSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	pages := s.p.Pages.Sample(s.rng)
	o.bytes = uint32(min(s.p.SizeBytes.Sample(s.rng), pages*nic.PageSizeBytes))
	op.Bytes = uint64(o.bytes)
	pl := s.pages[op.Index*s.maxPages : op.Index*s.maxPages+pages]
	o.va = pl[0]
	o.frAt = now
	st := s.m.B.FastRegister(s.qb[op.Stream], op.Index, o.mr, pl, 0, pages*nic.PageSizeBytes, o.va, nic.OpAllowRemoteWrite)
	if st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkFastRegister", st))
	}
	return nil
}

func (s *chainSource) fail(now sim.Tick, idx uint64, st nic.Status) {
	s.done.Fail(now, idx, st.String())
}

// Handle is host a's CQ hook: the Write's CQE posts the SendAndInvalidate;
// the Send's CQE ends the operation.
func (s *chainSource) Handle(now sim.Tick, _ uint64) { drainCQ(now, s.m.NIC, s.cqa, s.buf[:], s) }

func (s *chainSource) result(now sim.Tick, r *nic.Result) bool {
	idx := r.RequestContext
	o := &s.ops[idx]
	if r.Status != nic.StatusSuccess {
		s.fail(now, idx, r.Status)
		return true
	}
	switch r.Type {
	case nic.OpWrite:
		s.m.Measure(&s.wrLat, o.wrAt, now)
		o.sendAt = now
		if st := s.m.NIC.SendAndInvalidate(s.qa[idx/s.perQP], idx, nic.SGE{}, o.tok, 0); st != nic.StatusSuccess {
			s.m.Fail(inlineFailure("NdkSendAndInvalidate", st))
			return false
		}
	default:
		s.m.Measure(&s.invLat, o.sendAt, now)
		s.done.Handle(now, idx)
	}
	return true
}

type chainHookB struct{ s *chainSource }

// Handle is host b's CQ hook: a FastRegister's CQE hands the token to host
// a, which posts the Write; a receive's CQE reposts the receive.
func (h chainHookB) Handle(now sim.Tick, _ uint64) { drainCQ(now, h.s.m.B, h.s.cqb, h.s.buf[:], h) }

func (h chainHookB) result(now sim.Tick, r *nic.Result) bool {
	s := h.s
	b := s.m.B
	if r.Type&nic.OpReceive != 0 {
		if r.Status == nic.StatusSuccess {
			if st := b.Receive(s.qb[r.QPContext], 0, nic.SGE{}); st != nic.StatusSuccess {
				s.m.Fail(inlineFailure("NdkReceive", st))
				return false
			}
		}
		return true
	}
	idx := r.RequestContext
	o := &s.ops[idx]
	if r.Status != nic.StatusSuccess {
		s.fail(now, idx, r.Status)
		return true
	}
	s.m.Measure(&s.frLat, o.frAt, now)
	o.tok = b.GetRemoteTokenFromMr(o.mr)
	o.wrAt = now
	sge := nic.SGE{VirtualAddress: s.localVA, Length: o.bytes, Token: s.ltok}
	if st := s.m.NIC.Write(s.qa[idx/s.perQP], idx, sge, o.va, o.tok, 0); st != nic.StatusSuccess {
		s.m.Fail(inlineFailure("NdkWrite", st))
		return false
	}
	return true
}

// Parts reports each request's post-to-CQE latency.
func (s *chainSource) Parts() []Part {
	return []Part{{Name: "fast_register", Lat: &s.frLat}, {Name: "write", Lat: &s.wrLat}, {Name: "send_and_invalidate", Lat: &s.invLat}}
}

func init() { RegisterSource("fr_write_send_inv", newChainSource) }
