package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// rdma_write, rdma_read, send: two-host traffic. Host a (the model's NIC)
// is the initiator; host b (Model.B, built only when a generator has one
// of these kinds) is the responder, joined to a by Model.Wire. One
// operation is one request on one QP of a; it completes when its CQE is
// visible in a's host memory (latency: post to CQE).
//
// Objects (set up before warm-up, pending calls run to completion): per
// generator one CQ on each host, streams connected QP pairs, a local MR on
// a (local_pages pages: the largest size_bytes rounded up, local write and
// RDMA read sink) and a remote MR on b of remote_pages pages with
// remote_rights (rdma_write: remote_write; rdma_read: remote_read; send:
// the receive buffers, local write). The remote address of a Write or Read
// is uniform in the remote MR, aligned to align_bytes. For send, b keeps
// outstanding receives posted per QP and reposts each on its completion.
// A post that fails inline stops the run (Model.Fail). A failed request
// counts under its status name; an access error puts the QP pair in error
// (docs/nic.md), so the requests after it on that QP complete
// STATUS_CANCELLED.

type rdmaParams struct {
	SizeBytes    Dist     `yaml:"size_bytes" json:"size_bytes" check:"0..16777216"`
	RemotePages  uint32   `yaml:"remote_pages" json:"remote_pages" check:"1..65536"`
	AlignBytes   uint64   `yaml:"align_bytes" json:"align_bytes" check:"1..1048576"`
	RemoteRights []string `yaml:"remote_rights" json:"remote_rights" check:"len:0..2 remote_read|remote_write"`
}

type rdmaMode uint8

const (
	modeWrite rdmaMode = iota
	modeRead
	modeSend
)

func rdmaParamsFor(mode rdmaMode) func() any {
	return func() any {
		p := &rdmaParams{SizeBytes: Fixed(64), RemotePages: 16, AlignBytes: 64}
		switch mode {
		case modeWrite:
			p.RemoteRights = []string{"remote_write"}
		case modeRead:
			p.RemoteRights = []string{"remote_read"}
		}
		return p
	}
}

// remoteKinds are the kinds that need host b and the wire.
var remoteKinds = map[string]bool{"rdma_write": true, "rdma_read": true, "send": true}

// needsHostB reports whether a generator of w has a remote kind.
func needsHostB(w *Workload) bool {
	for i := range w.Generators {
		if remoteKinds[w.Generators[i].Kind] {
			return true
		}
	}
	return false
}

func checkRDMA(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*rdmaParams)
	a := &w.Adapter.NIC
	if l, r := p.SizeBytes.Largest(), uint64(p.RemotePages)*nic.PageSizeBytes; l > r {
		c.Errorf("size_bytes", "sizes up to %d exceed remote_pages x 4096 = %d", l, r)
	}
	if g.Outstanding > int(a.MaxInitiatorQueueDepth) {
		c.Errorf("outstanding", "%d exceeds adapter.nic.max_initiator_queue_depth = %d", g.Outstanding, a.MaxInitiatorQueueDepth)
	}
	if g.Kind == "send" && g.Outstanding > int(a.MaxReceiveQueueDepth) {
		c.Errorf("outstanding", "%d receives per QP exceed adapter.nic.max_receive_queue_depth = %d", g.Outstanding, a.MaxReceiveQueueDepth)
	}
	var qps uint64
	for i := range w.Generators {
		if remoteKinds[w.Generators[i].Kind] {
			qps += uint64(w.Generators[i].Streams)
		}
	}
	if qps > uint64(a.QPsMax) {
		c.Errorf("streams", "the remote generators need %d QPs per host, more than adapter.nic.qps_max = %d", qps, a.QPsMax)
	}
}

type rdmaOp struct {
	posted sim.Tick
}

type rdmaSource struct {
	m       *Model
	mode    rdmaMode
	p       *rdmaParams
	rng     *rand.Rand
	done    Done
	qa, qb  []*nic.QP
	cqa     *nic.CQ
	cqb     *nic.CQ
	local   *nic.MR
	remote  *nic.MR
	ltok    uint32
	rtok    uint32
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

func newRDMASource(mode rdmaMode) func(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	return func(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
		return buildRDMASource(mode, m, g, rng)
	}
}

func buildRDMASource(mode rdmaMode, m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	if m.B == nil {
		return nil, fmt.Errorf("kind %s needs host b (the model builds it for remote kinds)", g.Kind)
	}
	p := g.Params.(*rdmaParams)
	k := uint64(m.remoteGens)
	m.remoteGens++
	s := &rdmaSource{m: m, mode: mode, p: p, rng: rng, perQP: uint64(g.Outstanding),
		ops:     make([]rdmaOp, g.Streams*g.Outstanding),
		localVA: rdmaLocalBase + k*rdmaGenStride, remVA: rdmaRemoteBase + k*rdmaGenStride,
		remLen: uint64(p.RemotePages) * nic.PageSizeBytes}
	a, b := m.NIC, m.B
	var recvDepth uint32
	if mode == modeSend {
		recvDepth = uint32(g.Outstanding)
	}
	var err error
	s.cqa, s.cqb, s.qa, s.qb, err = twoHostPairs(m, g.Streams, uint32(g.Streams*g.Outstanding),
		uint32(g.Outstanding), 1, recvDepth, s, rdmaRecvHook{s})
	if err != nil {
		return nil, err
	}
	pda, pdb := m.nicPD, m.bPD // created by twoHostPairs
	localLen := (max(p.SizeBytes.Largest(), 1) + nic.PageSizeBytes - 1) / nic.PageSizeBytes * nic.PageSizeBytes
	var rflags nic.MRFlags
	for _, r := range p.RemoteRights {
		switch r {
		case "remote_read":
			rflags |= nic.MRAllowRemoteRead
		case "remote_write":
			rflags |= nic.MRAllowRemoteWrite
		}
	}
	if mode == modeSend {
		rflags |= nic.MRAllowLocalWrite
	}
	var setupErr error
	waiting := 0
	fail := func(e error) {
		if setupErr == nil {
			setupErr = e
		}
	}
	if err := registerOne(a, pda, s.localVA, localLen, nic.MRAllowLocalWrite|nic.MRRDMAReadSink, &s.local, &waiting, fail); err != nil {
		return nil, err
	}
	if err := registerOne(b, pdb, s.remVA, s.remLen, rflags, &s.remote, &waiting, fail); err != nil {
		return nil, err
	}
	if err := runSetup(m, &waiting, &setupErr); err != nil {
		return nil, err
	}
	s.ltok = a.GetLocalTokenFromMr(s.local)
	s.rtok = b.GetRemoteTokenFromMr(s.remote)
	if mode == modeSend {
		for q, qb := range s.qb {
			for j := 0; j < g.Outstanding; j++ {
				if st := s.postRecv(qb, uint64(q)*s.perQP+uint64(j)); st != nic.StatusSuccess {
					return nil, fmt.Errorf("NdkReceive on host b: %v", st)
				}
			}
		}
	}
	return s, nil
}

// registerOne creates a normal MR on a and registers [va, +length) with
// flags on it (physical = virtual), setting *out once created; *waiting
// counts the pending calls.
func registerOne(a *nic.Adapter, pd *nic.PD, va, length uint64, flags nic.MRFlags, out **nic.MR, waiting *int, fail func(error)) error {
	reg := func(mr *nic.MR) {
		*out = mr
		*waiting++
		st := a.RegisterMr(mr, []nic.MDL{{VirtualAddress: va, ByteCount: length}}, length, flags, func(_ uint64, st nic.Status) {
			*waiting--
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x) completed %v", length, uint32(flags), st))
			}
		}, 0)
		if st != nic.StatusPending {
			*waiting--
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x): %v", length, uint32(flags), st))
			}
		}
	}
	*waiting++
	st, mr := a.CreateMr(pd, false, func(_ uint64, st nic.Status, mr *nic.MR) {
		*waiting--
		if st != nic.StatusSuccess {
			fail(fmt.Errorf("NdkCreateMr completed %v", st))
			return
		}
		reg(mr)
	}, 0)
	switch st {
	case nic.StatusSuccess:
		*waiting--
		reg(mr)
	case nic.StatusPending:
	default:
		return fmt.Errorf("NdkCreateMr: %v", st)
	}
	return nil
}

func (s *rdmaSource) postRecv(qb *nic.QP, ctx uint64) nic.Status {
	n := uint32(min(s.p.SizeBytes.Largest(), s.remLen))
	return s.m.B.Receive(qb, ctx, nic.SGE{VirtualAddress: s.remVA, Length: n, Token: s.m.B.GetLocalTokenFromMr(s.remote)})
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
		slots := (s.remLen - n) / s.p.AlignBytes
		va := s.remVA + s.rng.Uint64N(slots+1)*s.p.AlignBytes
		if s.mode == modeWrite {
			call = "NdkWrite"
			st = s.m.NIC.Write(qp, op.Index, sge, va, s.rtok, 0)
		} else {
			call = "NdkRead"
			st = s.m.NIC.Read(qp, op.Index, sge, va, s.rtok, 0)
		}
	}
	if st != nic.StatusSuccess {
		s.m.Fail(inlineFailure(call, st))
	}
	return nil
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
	RegisterKind(Kind{Name: "rdma_write",
		Summary: "NdkWrite of size_bytes from host a into a registered remote MR on host b, over the wire",
		Params:  rdmaParamsFor(modeWrite), Check: checkRDMA, New: newRDMASource(modeWrite)})
	RegisterKind(Kind{Name: "rdma_read",
		Summary: "NdkRead of size_bytes from a registered remote MR on host b into host a, over the wire",
		Params:  rdmaParamsFor(modeRead), Check: checkRDMA, New: newRDMASource(modeRead)})
	RegisterKind(Kind{Name: "send",
		Summary: "NdkSend of size_bytes from host a to receives host b keeps posted, over the wire",
		Params:  rdmaParamsFor(modeSend), Check: checkRDMA, New: newRDMASource(modeSend)})
}

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

type chainParams struct {
	Pages     Dist `yaml:"pages" json:"pages" check:"1..65536"`
	SizeBytes Dist `yaml:"size_bytes" json:"size_bytes" check:"0..16777216"`
}

func newChainParams() any { return &chainParams{Pages: Fixed(1), SizeBytes: Fixed(64)} }

func checkChain(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*chainParams)
	a := &w.Adapter.NIC
	if l := p.Pages.Largest(); l > uint64(a.FRMRPageCount) {
		c.Errorf("pages", "pages up to %d exceed adapter.nic.frmr_page_count = %d", l, a.FRMRPageCount)
	}
	if l := p.SizeBytes.Largest(); l > p.Pages.Largest()*nic.PageSizeBytes {
		c.Errorf("size_bytes", "sizes up to %d exceed pages x 4096 (a Write larger than its registration is cut to it)", l)
	}
	if g.Outstanding > int(a.MaxInitiatorQueueDepth) || g.Outstanding > int(a.MaxReceiveQueueDepth) {
		c.Errorf("outstanding", "%d exceeds adapter.nic.max_initiator_queue_depth or max_receive_queue_depth", g.Outstanding)
	}
	var qps, mrs uint64
	for i := range w.Generators {
		if remoteKinds[w.Generators[i].Kind] {
			qps += uint64(w.Generators[i].Streams)
		}
		if w.Generators[i].Kind == "fr_write_send_inv" {
			mrs += uint64(w.Generators[i].Streams * w.Generators[i].Outstanding)
		}
	}
	if qps > uint64(a.QPsMax) {
		c.Errorf("streams", "the remote generators need %d QPs per host, more than adapter.nic.qps_max = %d", qps, a.QPsMax)
	}
	if mrs > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "FR MRs on host b (streams x outstanding) need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			mrs, w.Adapter.MTT.KeyTableEntriesMax)
	}
}

type chainOp struct {
	mr                 *nic.MR
	va                 uint64
	bytes              uint32
	tok                uint32
	frAt, wrAt, sendAt sim.Tick
}

type chainSource struct {
	m                    *Model
	p                    *chainParams
	rng                  *rand.Rand
	done                 Done
	qa, qb               []*nic.QP
	cqa, cqb             *nic.CQ
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

func newChainSource(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	if m.B == nil {
		return nil, fmt.Errorf("kind %s needs host b (the model builds it for remote kinds)", g.Kind)
	}
	p := g.Params.(*chainParams)
	k := uint64(m.remoteGens)
	m.remoteGens++
	n := g.Streams * g.Outstanding
	s := &chainSource{m: m, p: p, rng: rng, ops: make([]chainOp, n), perQP: uint64(g.Outstanding), maxPages: p.Pages.Largest()}
	a, b := m.NIC, m.B
	var err error
	s.cqa, s.cqb, s.qa, s.qb, err = twoHostPairs(m, g.Streams, uint32(2*n),
		uint32(g.Outstanding), uint32(g.Outstanding), uint32(g.Outstanding), s, chainHookB{s})
	if err != nil {
		return nil, err
	}
	pda, pdb := m.nicPD, m.bPD // created by twoHostPairs
	base := rdmaRemoteBase + k*rdmaGenStride
	s.pages = make([]uint64, uint64(n)*s.maxPages)
	for i := range s.pages {
		s.pages[i] = base + uint64(i)*nic.PageSizeBytes
	}
	var setupErr error
	waiting := 0
	fail := func(e error) {
		if setupErr == nil {
			setupErr = e
		}
	}
	localLen := (max(p.SizeBytes.Largest(), 1) + nic.PageSizeBytes - 1) / nic.PageSizeBytes * nic.PageSizeBytes
	s.localVA = rdmaLocalBase + k*rdmaGenStride
	if err := registerOne(a, pda, s.localVA, localLen, nic.MRAllowLocalWrite, &s.local, &waiting, fail); err != nil {
		return nil, err
	}
	for i := range s.ops {
		i := i
		initFR := func(mr *nic.MR) {
			s.ops[i].mr = mr
			waiting++
			st := b.InitializeFastRegisterMr(mr, uint32(s.maxPages), true, func(_ uint64, st nic.Status) {
				waiting--
				if st != nic.StatusSuccess {
					fail(fmt.Errorf("NdkInitializeFastRegisterMr completed %v", st))
				}
			}, 0)
			if st != nic.StatusPending {
				waiting--
				if st != nic.StatusSuccess {
					fail(fmt.Errorf("NdkInitializeFastRegisterMr(%d pages): %v", s.maxPages, st))
				}
			}
		}
		waiting++
		st, mr := b.CreateMr(pdb, true, func(_ uint64, st nic.Status, mr *nic.MR) {
			waiting--
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkCreateMr completed %v", st))
				return
			}
			initFR(mr)
		}, 0)
		switch st {
		case nic.StatusSuccess:
			waiting--
			initFR(mr)
		case nic.StatusPending:
		default:
			return nil, fmt.Errorf("NdkCreateMr %d of %d on host b: %v", i+1, n, st)
		}
	}
	if err := runSetup(m, &waiting, &setupErr); err != nil {
		return nil, err
	}
	s.ltok = a.GetLocalTokenFromMr(s.local)
	for _, qb := range s.qb {
		for j := 0; j < g.Outstanding; j++ {
			if st := b.Receive(qb, 0, nic.SGE{}); st != nic.StatusSuccess {
				return nil, fmt.Errorf("NdkReceive on host b: %v", st)
			}
		}
	}
	return s, nil
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
		if o.wrAt >= s.m.WarmEnd {
			s.wrLat.Record(uint64(now - o.wrAt))
		}
		o.sendAt = now
		if st := s.m.NIC.SendAndInvalidate(s.qa[idx/s.perQP], idx, nic.SGE{}, o.tok, 0); st != nic.StatusSuccess {
			s.m.Fail(inlineFailure("NdkSendAndInvalidate", st))
			return false
		}
	default:
		if o.sendAt >= s.m.WarmEnd {
			s.invLat.Record(uint64(now - o.sendAt))
		}
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
	if o.frAt >= s.m.WarmEnd {
		s.frLat.Record(uint64(now - o.frAt))
	}
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

func init() {
	remoteKinds["fr_write_send_inv"] = true
	RegisterKind(Kind{Name: "fr_write_send_inv",
		Summary: "two hosts: host b fast-registers an FR MR, host a RDMA-Writes into it, then SendAndInvalidates it; parts fast_register, write, send_and_invalidate",
		Params:  newChainParams, Check: checkChain, New: newChainSource})
}

// twoHostPairs creates one CQ on each host (depth cqDepth, capped at the
// adapter's MaxCqDepth) with the given visible hooks, and streams connected
// QP pairs: host a's with initiator depth aDepth, host b's with initiator
// depth bDepth and receive depth bRecv.
func twoHostPairs(m *Model, streams int, cqDepth, aDepth, bDepth, bRecv uint32, hookA, hookB sim.Handler) (
	cqa, cqb *nic.CQ, qa, qb []*nic.QP, err error) {
	a, b := m.NIC, m.B
	pda, err := m.pd()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pdb, err := m.pdB()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	depth := min(cqDepth, a.Spec().MaxCQDepth)
	st, cqa := a.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return nil, nil, nil, nil, fmt.Errorf("NdkCreateCq(depth %d) on host a: %v", depth, st)
	}
	st, cqb = b.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return nil, nil, nil, nil, fmt.Errorf("NdkCreateCq(depth %d) on host b: %v", depth, st)
	}
	cqa.SetVisibleHook(hookA, 0)
	cqb.SetVisibleHook(hookB, 0)
	for q := 0; q < streams; q++ {
		st, x := a.CreateQP(pda, cqa, uint64(q), aDepth, 0)
		if st != nic.StatusSuccess {
			return nil, nil, nil, nil, fmt.Errorf("NdkCreateQp %d of %d on host a: %v", q+1, streams, st)
		}
		st, y := b.CreateQP(pdb, cqb, uint64(q), bDepth, bRecv)
		if st != nic.StatusSuccess {
			return nil, nil, nil, nil, fmt.Errorf("NdkCreateQp %d of %d on host b: %v", q+1, streams, st)
		}
		if err := nic.ConnectQPs(x, y); err != nil {
			return nil, nil, nil, nil, err
		}
		qa, qb = append(qa, x), append(qb, y)
	}
	return cqa, cqb, qa, qb, nil
}
