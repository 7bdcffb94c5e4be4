package traffic

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// rdma_write, rdma_read, send: two-host traffic. Host a (the model's NIC)
// is the initiator; host b (Model.B, built only when a generator has a
// remote kind) is the responder, joined to a by Model.Wire. One operation
// is one request on one QP of a; it completes when its CQE is visible in
// a's host memory (latency: post to CQE).
//
// Objects (set up before warm-up, pending calls run to completion): per
// generator one CQ on each host, streams connected QP pairs, a local MR on
// a (local_pages pages: the largest size_bytes rounded up, local write and
// RDMA read sink) and remote_mrs remote MRs on b, side by side, of
// remote_pages pages each with remote_rights (rdma_write: remote_write;
// rdma_read: remote_read; send: one MR, the receive buffers, local write).
// A Write or Read picks its remote MR from remote_mr (default: uniform over
// the MRs; with one MR no draw is made) and its address uniform in that MR,
// aligned to align_bytes. For send, b keeps receive_depth receives posted
// per QP (workloads.ReceiveDepthFor) and reposts each on its completion.
// A post that fails inline stops the run (Model.Fail). A failed request
// counts under its status name; an access error puts the QP pair in error
// (docs/nic.md), so the requests after it on that QP complete
// STATUS_CANCELLED.

type rdmaMode uint8

const (
	modeWrite rdmaMode = iota
	modeRead
	modeSend
)

type rdmaOp struct {
	posted sim.Tick
}

type rdmaSource struct {
	m    *Model
	mode rdmaMode
	p    *workloads.RDMAParams
	rng  *rand.Rand
	done Done
	hostPairs
	local   *nic.MR
	remotes []*nic.MR // remote_mrs MRs on b, MR i at remVA + i x remLen
	ltok    uint32
	rtoks   []uint32
	localVA uint64
	remVA   uint64
	remLen  uint64
	perQP   uint64
	ops     []rdmaOp
	buf     [64]nic.Result
}

// Host addresses (physical = virtual) of the remote kinds' buffers, one
// window of rdmaGenStride per generator.
const (
	rdmaLocalBase  = 0x60_0000_0000
	rdmaRemoteBase = 0x70_0000_0000
	rdmaGenStride  = 0x1_0000_0000
)

// remoteWindow gives the next remote generator its buffer addresses: the
// local one on host a and the remote one on host b.
func (m *Model) remoteWindow(g *workloads.Generator) (localVA, remoteVA uint64, err error) {
	if m.B == nil {
		return 0, 0, fmt.Errorf("kind %s needs host b (the model builds it for remote kinds)", g.Kind)
	}
	k := uint64(m.remoteGens)
	m.remoteGens++
	return rdmaLocalBase + k*rdmaGenStride, rdmaRemoteBase + k*rdmaGenStride, nil
}

// pageRound is n bytes rounded up to whole pages, at least one.
func pageRound(n uint64) uint64 {
	return (max(n, 1) + nic.PageSizeBytes - 1) / nic.PageSizeBytes * nic.PageSizeBytes
}

func newRDMASource(mode rdmaMode) NewSource {
	return func(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
		return buildRDMASource(mode, m, g, rng)
	}
}

func buildRDMASource(mode rdmaMode, m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	localVA, remVA, err := m.remoteWindow(g)
	if err != nil {
		return nil, err
	}
	p := g.Params.(*workloads.RDMAParams)
	s := &rdmaSource{m: m, mode: mode, p: p, rng: rng, perQP: uint64(g.Outstanding),
		ops: make([]rdmaOp, g.Streams*g.Outstanding), localVA: localVA, remVA: remVA,
		remLen: uint64(p.RemotePages) * nic.PageSizeBytes}
	var recvDepth uint32
	if mode == modeSend {
		recvDepth = workloads.ReceiveDepthFor(p, g.Outstanding, m.B.Spec().MaxReceiveQueueDepth)
		s.perQP = uint64(recvDepth)
	}
	s.hostPairs, err = twoHostPairs(m, g.Streams, uint32(g.Streams)*max(uint32(g.Outstanding), recvDepth),
		uint32(g.Outstanding), 1, recvDepth, s, rdmaRecvHook{s})
	if err != nil {
		return nil, err
	}
	if err := s.registerBuffers(); err != nil {
		return nil, err
	}
	if mode == modeSend {
		for q, qb := range s.qb {
			for j := range uint64(recvDepth) {
				if st := s.postRecv(qb, uint64(q)*s.perQP+uint64(j)); st != nic.StatusSuccess {
					return nil, fmt.Errorf("NdkReceive on host b: %v", st)
				}
			}
		}
	}
	return s, nil
}

// registerBuffers registers the local buffer on host a and the remote one
// on host b, and takes their tokens.
func (s *rdmaSource) registerBuffers() error {
	m := s.m
	a, b := m.NIC, m.B
	pda, pdb := m.nicPD, m.bPD // created by twoHostPairs
	rflags := flagsOf(s.p.RemoteRights, mrRightFlags)
	if s.mode == modeSend {
		rflags |= nic.MRAllowLocalWrite
	}
	su := &setup{m: m}
	if err := su.registerOne(a, pda, s.localVA, pageRound(s.p.SizeBytes.Largest()), nic.MRAllowLocalWrite|nic.MRRDMAReadSink, &s.local); err != nil {
		return err
	}
	s.remotes = make([]*nic.MR, s.p.RemoteMRs)
	if err := su.issueEach(len(s.remotes), func(i int) error {
		return su.registerOne(b, pdb, s.remVA+uint64(i)*s.remLen, s.remLen, rflags, &s.remotes[i])
	}); err != nil {
		return err
	}
	if err := su.run(); err != nil {
		return err
	}
	s.ltok = a.GetLocalTokenFromMr(s.local)
	s.rtoks = make([]uint32, len(s.remotes))
	for i, mr := range s.remotes {
		s.rtoks[i] = b.GetRemoteTokenFromMr(mr)
	}
	return nil
}

func (s *rdmaSource) postRecv(qb *nic.QP, ctx uint64) nic.Status {
	n := uint32(min(s.p.SizeBytes.Largest(), s.remLen))
	return s.m.B.Receive(qb, ctx, nic.SGE{VirtualAddress: s.remVA, Length: n, Token: s.m.B.GetLocalTokenFromMr(s.remotes[0])})
}

// Start posts one request.
func (s *rdmaSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	n := s.p.SizeBytes.Sample(s.rng)
	op.Bytes = n
	s.ops[op.Index].posted = now
	sge := nic.SGE{VirtualAddress: s.localVA, Length: uint32(n), Token: s.ltok}
	qp := s.qa[op.Stream]
	var st nic.Status
	var call string
	switch s.mode {
	case modeSend:
		call = "NdkSend"
		st = s.m.NIC.Send(qp, op.Index, sge, 0)
	default:
		mr := s.pickRemote()
		slots := (s.remLen - n) / s.p.AlignBytes
		va := s.remVA + mr*s.remLen + s.rng.Uint64N(slots+1)*s.p.AlignBytes
		if s.mode == modeWrite {
			call = "NdkWrite"
			st = s.m.NIC.Write(qp, op.Index, sge, va, s.rtoks[mr], 0)
		} else {
			call = "NdkRead"
			st = s.m.NIC.Read(qp, op.Index, sge, va, s.rtoks[mr], 0)
		}
	}
	if st != nic.StatusSuccess {
		s.m.Fail(inlineFailure(call, st))
	}
	return nil
}

// pickRemote is the index of the remote MR a Write or Read addresses:
// drawn from remote_mr, else uniform over remote_mrs; with one MR and no
// distribution, 0 without a draw (the stream's draws stay those of a file
// without the keys).
func (s *rdmaSource) pickRemote() uint64 {
	switch {
	case s.p.RemoteMR != nil:
		return s.p.RemoteMR.Sample(s.rng)
	case len(s.remotes) > 1:
		return s.rng.Uint64N(uint64(len(s.remotes)))
	}
	return 0
}

// Handle is host a's CQ visible hook: a consumer spinning on the CQ.
func (s *rdmaSource) Handle(now sim.Tick, _ uint64) { drainCQ(now, s.m.NIC, s.cqa, s.buf[:], s) }

func (s *rdmaSource) result(now sim.Tick, r *nic.Result) bool {
	if r.Status != nic.StatusSuccess {
		s.done.Fail(now, r.RequestContext, r.Status.String())
	} else {
		s.done.Handle(now, r.RequestContext)
	}
	return true
}

// rdmaRecvHook is host b's CQ visible hook: it reposts each completed
// receive (a cancelled one is not reposted: the QP is in error).
type rdmaRecvHook struct{ s *rdmaSource }

func (h rdmaRecvHook) Handle(now sim.Tick, _ uint64) { drainCQ(now, h.s.m.B, h.s.cqb, h.s.buf[:], h) }

func (h rdmaRecvHook) result(_ sim.Tick, r *nic.Result) bool {
	s := h.s
	if r.Status == nic.StatusSuccess && s.mode == modeSend {
		q := r.RequestContext / s.perQP
		if st := s.postRecv(s.qb[q], r.RequestContext); st != nic.StatusSuccess {
			s.m.Fail(inlineFailure("NdkReceive", st))
		}
	}
	return true
}

func init() {
	RegisterSource("rdma_write", newRDMASource(modeWrite))
	RegisterSource("rdma_read", newRDMASource(modeRead))
	RegisterSource("send", newRDMASource(modeSend))
}
