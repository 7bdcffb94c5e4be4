package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// bind_invalidate: one operation is the chain NdkBind of a memory window to
// part of a registered normal MR, then NdkInvalidate of the window, on one
// QP through the NIC's send-queue pipeline (docs/nic.md). The operation
// completes when the Invalidate's CQE is visible; its latency runs from
// arrival to then. The Bind's and the Invalidate's own latencies (post to
// CQE) are reported as the parts `bind` and `invalidate`.
//
// Objects (set up before warm-up, pending calls run to completion): one PD
// per model, one CQ per generator, one connected QP per stream with
// 2 x outstanding initiator slots, one normal MR per stream registered with
// NdkRegisterMr (local write, remote read and write; mr_pages pages; the
// firmware callback awaited) and one window (NdkCreateMw) per operation
// slot. WRs are posted from Start (no DEFER); the consumer spins on the CQ.

type bindParams struct {
	MRPages     uint32   `yaml:"mr_pages" json:"mr_pages" check:"1..65536"`
	WindowBytes Dist     `yaml:"window_bytes" json:"window_bytes" check:"1..268435456"`
	Rights      []string `yaml:"rights" json:"rights" check:"len:0..2 remote_read|remote_write"`
}

func newBindParams() any {
	return &bindParams{MRPages: 16, WindowBytes: Fixed(4096), Rights: []string{"remote_read", "remote_write"}}
}

func checkBind(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*bindParams)
	a := &w.Adapter.NIC
	mrBytes := uint64(p.MRPages) * nic.PageSizeBytes
	if l := p.WindowBytes.Largest(); l > mrBytes {
		c.Errorf("window_bytes", "windows up to %d bytes do not fit the MR of mr_pages x 4096 = %d bytes", l, mrBytes)
	}
	if l, mw := p.WindowBytes.Largest(), uint64(a.FRMRPageCount)*nic.PageSizeBytes; l > mw {
		c.Errorf("window_bytes", "windows up to %d bytes exceed the adapter's MaxWindowSize (adapter.nic.frmr_page_count x 4096 = %d)", l, mw)
	}
	if b := mrBytes; b > a.MaxRegistrationSizeBytes {
		c.Errorf("mr_pages", "%d bytes exceed adapter.nic.max_registration_size_bytes = %d", b, a.MaxRegistrationSizeBytes)
	}
	if d := 2 * g.Outstanding; d > int(a.MaxInitiatorQueueDepth) {
		c.Errorf("outstanding", "%d operations of 2 WRs need a QP depth of %d, more than adapter.nic.max_initiator_queue_depth = %d",
			g.Outstanding, d, a.MaxInitiatorQueueDepth)
	}
	var qps uint64
	for i := range w.Generators {
		switch w.Generators[i].Params.(type) {
		case *frInvParams, *bindParams:
			qps += uint64(w.Generators[i].Streams)
		}
	}
	if qps > uint64(a.QPsMax) {
		c.Errorf("streams", "the NIC generators need %d QPs in all, more than adapter.nic.qps_max = %d", qps, a.QPsMax)
	}
	keys, mtt := nicMTTUse(w)
	if keys > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "the NIC generators' MRs and windows and the regions need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			keys, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf("mr_pages", "the NIC generators' MRs and the regions need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d",
			mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}

type bindOp struct {
	mw        *nic.MW
	bindPost  sim.Tick
	invPosted sim.Tick
	reason    string
}

type bindSource struct {
	m       *Model
	a       *nic.Adapter
	p       *bindParams
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
	bindLat sim.Histogram
	invLat  sim.Histogram
}

// bindPageBase is where the bind MRs' pages start (one MR after the other).
const bindPageBase = 0x60_0000_0000

func newBindSource(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*bindParams)
	a := m.NIC
	s := &bindSource{m: m, a: a, p: p, rng: rng, ops: make([]bindOp, g.Streams*g.Outstanding),
		mrs: make([]*nic.MR, g.Streams), perQP: uint64(g.Outstanding), mrBytes: uint64(p.MRPages) * nic.PageSizeBytes}
	for _, r := range p.Rights {
		switch r {
		case "remote_read":
			s.flags |= nic.OpAllowRemoteRead
		case "remote_write":
			s.flags |= nic.OpAllowRemoteWrite
		}
	}
	pd, err := m.pd()
	if err != nil {
		return nil, err
	}
	depth := uint32(min(2*g.Streams*g.Outstanding, int(a.Spec().MaxCQDepth)))
	st, cq := a.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return nil, fmt.Errorf("NdkCreateCq(depth %d): %v", depth, st)
	}
	s.cq = cq
	cq.SetVisibleHook(s, 0)
	for q := 0; q < g.Streams; q++ {
		st, qp := a.CreateQP(pd, cq, uint64(q), uint32(2*g.Outstanding), 0)
		if st != nic.StatusSuccess {
			return nil, fmt.Errorf("NdkCreateQp %d of %d (depth %d): %v", q+1, g.Streams, 2*g.Outstanding, st)
		}
		qp.Connect()
		s.qps = append(s.qps, qp)
	}
	var setupErr error
	fail := func(e error) {
		if setupErr == nil {
			setupErr = e
		}
	}
	waiting := 0
	flags := nic.MRAllowLocalWrite | nic.MRAllowRemoteRead | nic.MRAllowRemoteWrite
	if err := createNormalMRs(m, pd, g.Streams, &waiting, fail, func(i int, mr *nic.MR) {
		s.mrs[i] = mr
		va := bindPageBase + uint64(i)*s.mrBytes
		waiting++
		st := a.RegisterMr(mr, []nic.MDL{{VirtualAddress: va, ByteCount: s.mrBytes}}, s.mrBytes, flags, func(_ uint64, st nic.Status) {
			waiting--
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkRegisterMr(%d pages) completed %v", p.MRPages, st))
			}
		}, uint64(i))
		if st != nic.StatusPending {
			waiting--
			fail(fmt.Errorf("NdkRegisterMr(%d pages) of MR %d: %v", p.MRPages, i+1, st))
		}
	}); err != nil {
		return nil, err
	}
	for i := range s.ops {
		i := i
		waiting++
		st, mw := a.CreateMw(pd, func(_ uint64, st nic.Status, mw *nic.MW) {
			waiting--
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkCreateMw completed %v", st))
				return
			}
			s.ops[i].mw = mw
		}, uint64(i))
		switch st {
		case nic.StatusSuccess:
			waiting--
			s.ops[i].mw = mw
		case nic.StatusPending:
		default:
			return nil, fmt.Errorf("NdkCreateMw %d of %d: %v", i+1, len(s.ops), st)
		}
	}
	if err := runSetup(m, &waiting, &setupErr); err != nil {
		return nil, err
	}
	return s, nil
}

// Start posts the Bind and the Invalidate of one operation.
func (s *bindSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.reason = ""
	length := s.p.WindowBytes.Sample(s.rng)
	op.Bytes = length
	mr := s.mrs[op.Stream]
	va := bindPageBase + uint64(op.Stream)*s.mrBytes
	if room := s.mrBytes - length; room > 0 {
		va += s.rng.Uint64N(room+1) &^ 63
	}
	qp := s.qps[op.Stream]
	o.bindPost = now
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
	o := &s.ops[idx]
	if r.Status != nic.StatusSuccess && o.reason == "" {
		o.reason = r.Status.String()
	}
	switch r.Type {
	case nic.OpBind:
		if r.Status == nic.StatusSuccess && o.bindPost >= s.m.WarmEnd {
			s.bindLat.Record(uint64(now - o.bindPost))
		}
	case nic.OpInvalidate:
		if r.Status == nic.StatusSuccess && o.invPosted >= s.m.WarmEnd {
			s.invLat.Record(uint64(now - o.invPosted))
		}
		if o.reason != "" {
			s.done.Fail(now, idx, o.reason)
			return true
		}
		s.done.Handle(now, idx)
	}
	return true
}

// Parts reports the Bind and Invalidate latencies (post to CQE, successful
// requests posted after warm-up).
func (s *bindSource) Parts() []Part {
	return []Part{{Name: "bind", Lat: &s.bindLat}, {Name: "invalidate", Lat: &s.invLat}}
}

func init() {
	RegisterKind(Kind{Name: "bind_invalidate",
		Summary: "NdkBind of a memory window to a registered MR then NdkInvalidate of it on one QP, through the NIC pipeline; parts bind and invalidate",
		Params:  newBindParams, Check: checkBind, New: newBindSource})
}
