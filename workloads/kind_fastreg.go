package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
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
// per operation). WRs are posted in a zero-delay event after the
// operations of one instant have started. With defer_chain > 1 the
// consumer holds a QP's started operations until it has defer_chain WRs
// for it or the QP has nothing in flight (so no completion would come to
// add more), then posts them with DEFER on all but every defer_chain-th WR
// and the last: the doorbell rings once per chain and never waits for a WR
// that is not coming. A post that fails inline stops the run (Model.Fail):
// nothing was posted, so a closed loop would retry it forever at one
// instant.

type frInvParams struct {
	Pages          Dist     `yaml:"pages" json:"pages" check:"1..65536"`
	MRPages        uint32   `yaml:"mr_pages" json:"mr_pages" check:"0..65536"`
	RemoteAccess   bool     `yaml:"remote_access" json:"remote_access"`
	Rights         []string `yaml:"rights" json:"rights" check:"len:0..2 remote_read|remote_write"`
	InlinePageList *bool    `yaml:"inline_page_list" json:"inline_page_list,omitempty"`
	DeferChain     int      `yaml:"defer_chain" json:"defer_chain" check:"1..1024"`
	SilentSuccess  bool     `yaml:"silent_success" json:"silent_success"`
}

func newFRInvParams() any {
	return &frInvParams{Pages: Fixed(1), RemoteAccess: true, Rights: []string{"remote_read", "remote_write"}, DeferChain: 1}
}

// mrPages is the page count the MRs are initialised for.
func (p *frInvParams) mrPages() uint32 {
	if p.MRPages > 0 {
		return p.MRPages
	}
	return uint32(max(p.Pages.Largest(), 1))
}

func checkFRInv(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*frInvParams)
	a := &w.Adapter.NIC
	if l := p.Pages.Largest(); l > uint64(a.FRMRPageCount) {
		c.Errorf("pages", "pages up to %d exceed adapter.nic.frmr_page_count = %d", l, a.FRMRPageCount)
	}
	if p.MRPages > a.FRMRPageCount {
		c.Errorf("mr_pages", "%d exceeds adapter.nic.frmr_page_count = %d", p.MRPages, a.FRMRPageCount)
	}
	if l := p.Pages.Largest(); p.MRPages > 0 && l > uint64(p.MRPages) {
		c.Errorf("pages", "pages up to %d exceed mr_pages = %d (the MRs' initialised page count)", l, p.MRPages)
	}
	if d := 2 * g.Outstanding; d > int(a.MaxInitiatorQueueDepth) {
		c.Errorf("outstanding", "%d operations of 2 WRs need a QP depth of %d, more than adapter.nic.max_initiator_queue_depth = %d",
			g.Outstanding, d, a.MaxInitiatorQueueDepth)
	}
	if !p.RemoteAccess && len(p.Rights) > 0 {
		c.Errorf("rights", "remote rights on MRs initialised without remote_access fail every FastRegister (STATUS_ACCESS_VIOLATION); set remote_access: true or rights: []")
	}
	if p.InlinePageList != nil {
		// The NIC decides per adapter (a FastRegister of at most
		// inline_page_list_entries_max pages carries its list in the WQE);
		// the NDK call has no per-request choice, so the key sets the adapter.
		if !*p.InlinePageList {
			a.InlinePageListEntriesMax = 0
		} else if a.InlinePageListEntriesMax == 0 {
			c.Errorf("inline_page_list", "true needs adapter.nic.inline_page_list_entries_max > 0 (it is 0, set by the file or by another generator's inline_page_list: false): the NIC decides per adapter, not per request")
		}
	}
	var qps, mrs, mtt uint64
	for i := range w.Generators {
		if gp, ok := w.Generators[i].Params.(*frInvParams); ok {
			qps += uint64(w.Generators[i].Streams)
			n := uint64(w.Generators[i].Streams * w.Generators[i].Outstanding)
			mrs += n
			mtt += n * uint64(gp.mrPages())
		}
	}
	for _, r := range w.Regions {
		mrs++
		mtt += r.Pages
	}
	if qps > uint64(a.QPsMax) {
		c.Errorf("streams", "the NIC generators need %d QPs in all, more than adapter.nic.qps_max = %d", qps, a.QPsMax)
	}
	if mrs > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "MRs (streams x outstanding per NIC generator) and regions need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			mrs, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf("mr_pages", "MRs (streams x outstanding x mr_pages) and regions need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d",
			mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}

// frOp is the state of one operation slot.
type frOp struct {
	mr        *nic.MR
	pages     uint32
	frPosted  sim.Tick
	invPosted sim.Tick
	reason    string // first failure
}

type frInvSource struct {
	m        *Model
	a        *nic.Adapter
	p        *frInvParams
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
	frLat    sim.Histogram
	invLat   sim.Histogram
	setupErr error
}

func newFRInvSource(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*frInvParams)
	a := m.NIC
	s := &frInvSource{m: m, a: a, p: p, rng: rng, ops: make([]frOp, g.Streams*g.Outstanding),
		pending: make([][]uint64, g.Streams), inflight: make([]int, g.Streams), perQP: uint64(g.Outstanding)}
	for _, r := range p.Rights {
		switch r {
		case "remote_read":
			s.frFlags |= nic.OpAllowRemoteRead
		case "remote_write":
			s.frFlags |= nic.OpAllowRemoteWrite
		}
	}
	if p.SilentSuccess {
		s.frFlags |= nic.OpSilentSuccess
	}
	mrPages := p.mrPages()
	s.addrs = make([]uint64, mrPages)
	for i := range s.addrs {
		s.addrs[i] = frPageBase + uint64(i)*3*nic.PageSizeBytes // page-aligned, not contiguous
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
	eng := m.Env.Engine
	waiting := 0
	settled := func() { // a pending call completed
		waiting--
		if waiting == 0 {
			eng.Stop() // setup ends with the last completion
		}
	}
	for i := range s.ops {
		i := i
		init := func() {
			waiting++
			st := a.InitializeFastRegisterMr(s.ops[i].mr, mrPages, p.RemoteAccess, func(_ uint64, st nic.Status) {
				settled()
				if st != nic.StatusSuccess && s.setupErr == nil {
					s.setupErr = fmt.Errorf("NdkInitializeFastRegisterMr(%d pages) completed %v", mrPages, st)
				}
			}, uint64(i))
			if st != nic.StatusPending && st != nic.StatusSuccess && s.setupErr == nil {
				s.setupErr = fmt.Errorf("NdkInitializeFastRegisterMr(%d pages) of MR %d: %v", mrPages, i+1, st)
			}
			if st != nic.StatusPending {
				waiting--
			}
		}
		waiting++
		st, mr := a.CreateMr(pd, true, func(_ uint64, st nic.Status, mr *nic.MR) {
			defer settled() // after init() has counted its own call
			if st != nic.StatusSuccess {
				if s.setupErr == nil {
					s.setupErr = fmt.Errorf("NdkCreateMr completed %v", st)
				}
				return
			}
			s.ops[i].mr = mr
			init()
		}, uint64(i))
		switch st {
		case nic.StatusSuccess:
			waiting--
			s.ops[i].mr = mr
			init()
		case nic.StatusPending:
		default:
			return nil, fmt.Errorf("NdkCreateMr %d of %d: %v", i+1, len(s.ops), st)
		}
		if s.setupErr != nil {
			return nil, s.setupErr
		}
	}
	// Run pending creation calls to completion (firmware commands, MPT
	// writes), in bounded steps of simulated time.
	for step := 0; waiting > 0 && s.setupErr == nil; step++ {
		if step >= setupStepsMax {
			return nil, fmt.Errorf("setup: %d creation calls still pending after %v of simulated time", waiting, setupStep*setupStepsMax)
		}
		eng.RunUntil(eng.Now() + setupStep)
	}
	if s.setupErr != nil {
		return nil, s.setupErr
	}
	return s, nil
}

// Setup runs in steps of setupStep, at most setupStepsMax of them (1 s of
// simulated time: 20000 firmware commands of 50 µs in a row).
const (
	setupStep     = 100 * sim.US
	setupStepsMax = 10000
	frPageBase    = 0x40_0000_0000 // adapter logical addresses of registered pages
)

// pd returns the model's protection domain, created on first use.
func (m *Model) pd() (*nic.PD, error) {
	if m.nicPD == nil {
		st, pd := m.NIC.CreatePD()
		if st != nic.StatusSuccess {
			return nil, fmt.Errorf("NdkCreatePd: %v", st)
		}
		m.nicPD = pd
	}
	return m.nicPD, nil
}

// Start takes one operation: its WRs are posted in the flush event of this
// instant.
func (s *frInvSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.pages = uint32(s.p.Pages.Sample(s.rng))
	o.reason = ""
	op.Bytes = uint64(o.pages) * nic.PageSizeBytes
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
		qp := s.qps[q]
		total := 2 * len(ops)
		flags := func(j int) nic.OpFlags {
			if (j+1)%chain != 0 && j != total-1 {
				return nic.OpDefer
			}
			return 0
		}
		for k, idx := range ops {
			o := &s.ops[idx]
			o.frPosted = now
			s.inflight[q]++
			n := uint64(o.pages)
			st := s.a.FastRegister(qp, idx, o.mr, s.addrs[:n], 0, n*nic.PageSizeBytes, 0, s.frFlags|flags(2*k))
			if st != nic.StatusSuccess {
				s.m.Fail(inlineFailure("NdkFastRegister", st))
				return
			}
			o.invPosted = now
			st = s.a.Invalidate(qp, idx, o.mr, flags(2*k+1))
			if st != nic.StatusSuccess {
				s.m.Fail(inlineFailure("NdkInvalidate", st))
				return
			}
		}
		s.pending[q] = ops[:0]
	}
	s.held, s.dirty = s.dirty[:0], held
}

// inlineFailure is the run error of a post that failed inline: nothing was
// posted and no CQE follows, so a closed loop would retry it at no
// simulated cost, forever at one instant.
func inlineFailure(call string, st nic.Status) error {
	return fmt.Errorf("%s failed inline with %v: the workload posts a request the provider refuses (see docs/nic.md, checks in order)", call, st)
}

// Handle is the CQ's visible hook: a consumer spinning on the CQ.
func (s *frInvSource) Handle(now sim.Tick, _ uint64) { drainCQ(now, s.a, s.cq, s.buf[:], s) }

func (s *frInvSource) result(now sim.Tick, r *nic.Result) bool {
	idx := r.RequestContext
	o := &s.ops[idx]
	if r.Status != nic.StatusSuccess && o.reason == "" {
		o.reason = r.Status.String()
	}
	switch r.Type {
	case nic.OpFastRegister:
		if r.Status == nic.StatusSuccess && o.frPosted >= s.m.WarmEnd {
			s.frLat.Record(uint64(now - o.frPosted))
		}
	case nic.OpInvalidate:
		if r.Status == nic.StatusSuccess && o.invPosted >= s.m.WarmEnd {
			s.invLat.Record(uint64(now - o.invPosted))
		}
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
	if r := s.ops[idx].reason; r != "" {
		s.done.Fail(now, idx, r)
		return
	}
	s.done.Handle(now, idx)
}

// Parts reports the FastRegister and Invalidate latencies (post to CQE,
// successful requests posted after warm-up).
func (s *frInvSource) Parts() []Part {
	return []Part{{Name: "fast_register", Lat: &s.frLat}, {Name: "invalidate", Lat: &s.invLat}}
}

func init() {
	RegisterKind(Kind{Name: "fast_register_invalidate",
		Summary: "NdkFastRegister of an FR MR then NdkInvalidate of it on one QP, through the NIC pipeline; parts fast_register and invalidate",
		Params:  newFRInvParams, Check: checkFRInv, New: newFRInvSource})
}
