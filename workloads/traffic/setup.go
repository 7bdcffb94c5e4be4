package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// Setup of the NIC kinds' objects: sources create their PDs, CQs, QPs, MRs
// and windows when they are built, and run the engine until every pending
// creation call has completed, before warm-up.

// Setup runs in steps of setupStep for as long as calls keep completing: it
// fails when none has completed for setupStallSteps steps in a row (1 s of
// simulated time: 20000 firmware commands of 50 µs in a row). A million MRs
// take about 52 s of simulated time (one 50 µs create-mkey command each).
const (
	setupStep       = 100 * sim.US
	setupStallSteps = 10000
)

// setup counts one source's pending creation calls and keeps the first
// error a call reported.
type setup struct {
	m       *Model
	waiting int
	done    uint64 // pending calls completed so far
	err     error
	// stopAtLast stops the engine when the last pending call completes, so
	// that setup ends there rather than at the end of a setupStep.
	stopAtLast bool
	// batches are the calls issueEach has still to make, in order; filling
	// guards against calls that complete while they are being made.
	batches []*batch
	filling bool
}

// batch is one issueEach: call(i) for i in next..n-1 are still to make.
type batch struct {
	n, next int
	call    func(i int) error
}

// setupWindow bounds the creation calls a source keeps pending at once when
// it has many to make (issueEach): far more than the firmware's command
// queue holds (adapter.nic.firmware_queue_depth, at most 1024), so the
// commands reach the NIC when they would with every call made at once,
// while the provider's backlog of commands and pending calls stays small. A
// variable for the test that checks it changes no result.
var setupWindow = 4096

// release counts a pending call completed and issues more (issueEach).
func (s *setup) release() {
	s.waiting--
	s.done++
	s.issueMore()
	if s.stopAtLast && s.waiting == 0 {
		s.m.Env.Engine.Stop()
	}
}

// issueEach makes call(i) for i in 0..n-1, at most setupWindow pending at
// once: the rest are made as pending calls complete (the engine runs them
// in run). An error of a call is the setup's error.
func (s *setup) issueEach(n int, call func(i int) error) error {
	s.batches = append(s.batches, &batch{n: n, call: call})
	s.issueMore()
	return s.err
}

// issueMore makes the batches' next calls while fewer than setupWindow are
// pending.
func (s *setup) issueMore() {
	if s.filling {
		return
	}
	s.filling = true
	for len(s.batches) > 0 && s.waiting < setupWindow && s.err == nil {
		b := s.batches[0]
		if b.next == b.n {
			s.batches = s.batches[1:]
			continue
		}
		i := b.next
		b.next++
		if err := b.call(i); err != nil {
			s.fail(err)
		}
	}
	s.filling = false
}

// pend issues a call that may pend (issue makes it with its callback) and
// counts it until it completes. A failure is recorded: in the callback as
// completed(status), returned inline as inline(status).
func (s *setup) pend(issue func(done nic.RequestCompletion) nic.Status, completed, inline func(nic.Status) error) {
	s.waiting++
	st := issue(func(_ uint64, st nic.Status) {
		s.release()
		if st != nic.StatusSuccess {
			s.fail(completed(st))
		}
	})
	if st != nic.StatusPending {
		s.waiting--
		if st != nic.StatusSuccess {
			s.fail(inline(st))
		}
	}
}

// fail records e unless an error came first.
func (s *setup) fail(e error) {
	if s.err == nil {
		s.err = e
	}
}

// run runs the engine until no call is pending, in steps of setupStep, and
// returns the first error; a setup in which no call completes for
// setupStallSteps steps is an error.
func (s *setup) run() error {
	eng := s.m.Env.Engine
	last, stalled := s.done, 0
	for s.waiting > 0 && s.err == nil {
		if stalled >= setupStallSteps {
			return fmt.Errorf("setup: %d creation calls still pending, none completed in the last %v of simulated time", s.waiting, setupStep*setupStallSteps)
		}
		eng.RunUntil(eng.Now() + setupStep)
		if stalled++; s.done != last {
			last, stalled = s.done, 0
		}
	}
	return s.err
}

// created settles a creation call that returned st: done at once (its
// count in s.waiting is released and then runs now) or pending (its
// callback will do both). Any other status is the error of the call,
// named what.
func (s *setup) created(st nic.Status, then func(), what string) error {
	switch st {
	case nic.StatusSuccess:
		s.waiting--
		then()
	case nic.StatusPending:
	default:
		return fmt.Errorf("%s: %v", what, st)
	}
	return nil
}

// createMR creates an MR on a (fast-register or normal) and hands it to
// then once it exists (the callback's context is ctx). The call is counted
// in s.waiting until then has run; an inline failure is the error of the
// call named what.
func (s *setup) createMR(a *nic.Adapter, pd *nic.PD, fastRegister bool, ctx uint64, then func(*nic.MR), what string) error {
	s.waiting++
	st, mr := a.CreateMr(pd, fastRegister, func(_ uint64, st nic.Status, mr *nic.MR) {
		defer s.release() // after then has counted calls of its own
		if st != nic.StatusSuccess {
			s.fail(fmt.Errorf("NdkCreateMr completed %v", st))
			return
		}
		then(mr)
	}, ctx)
	return s.created(st, func() { then(mr) }, what)
}

// normalMRs creates n normal MRs (NdkCreateMr, FastRegister FALSE) on the
// model's NIC; then(i, mr) runs for each as it arrives and may issue
// further pending calls, counted in s.waiting.
func (s *setup) normalMRs(pd *nic.PD, n int, then func(i int, mr *nic.MR)) error {
	return s.issueEach(n, func(i int) error {
		return s.createMR(s.m.NIC, pd, false, uint64(i), func(mr *nic.MR) { then(i, mr) }, fmt.Sprintf("NdkCreateMr %d of %d", i+1, n))
	})
}

// registerOne creates a normal MR on a and registers [va, +length) with
// flags on it (physical = virtual), setting *out once created.
func (s *setup) registerOne(a *nic.Adapter, pd *nic.PD, va, length uint64, flags nic.MRFlags, out **nic.MR) error {
	reg := func(mr *nic.MR) {
		*out = mr
		s.pend(func(done nic.RequestCompletion) nic.Status {
			return a.RegisterMr(mr, []nic.MDL{{VirtualAddress: va, ByteCount: length}}, length, flags, done, 0)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x) completed %v", length, uint32(flags), st)
		}, func(st nic.Status) error {
			return fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x): %v", length, uint32(flags), st)
		})
	}
	return s.createMR(a, pd, false, 0, reg, "NdkCreateMr")
}

// pd returns the model's protection domain, created on first use.
func (m *Model) pd() (*nic.PD, error) { return pdOf(m.NIC, &m.nicPD, "") }

// pdB returns host b's protection domain, created on first use.
func (m *Model) pdB() (*nic.PD, error) { return pdOf(m.B, &m.bPD, " on host b") }

// pdOf returns *pd, creating it on adapter a first (where names the host
// in errors).
func pdOf(a *nic.Adapter, pd **nic.PD, where string) (*nic.PD, error) {
	if *pd == nil {
		st, p := a.CreatePD()
		if st != nic.StatusSuccess {
			return nil, fmt.Errorf("NdkCreatePd%s: %v", where, st)
		}
		*pd = p
	}
	return *pd, nil
}

// chainQPs creates the CQ and the QPs of a kind that posts chains of two
// WRs on the model's NIC: one CQ per generator (its visible hook the
// consumer) and one connected QP per stream with 2 x outstanding
// initiator slots.
func chainQPs(m *Model, pd *nic.PD, g *workloads.Generator, hook sim.Handler) (*nic.CQ, []*nic.QP, error) {
	a := m.NIC
	depth := uint32(min(2*g.Streams*g.Outstanding, int(a.Spec().MaxCQDepth)))
	st, cq := a.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return nil, nil, fmt.Errorf("NdkCreateCq(depth %d): %v", depth, st)
	}
	cq.SetVisibleHook(hook, 0)
	var qps []*nic.QP
	for q := 0; q < g.Streams; q++ {
		st, qp := a.CreateQP(pd, cq, uint64(q), uint32(2*g.Outstanding), 0)
		if st != nic.StatusSuccess {
			return nil, nil, fmt.Errorf("NdkCreateQp %d of %d (depth %d): %v", q+1, g.Streams, 2*g.Outstanding, st)
		}
		qp.Connect()
		qps = append(qps, qp)
	}
	return cq, qps, nil
}

// hostPairs are the CQ on each host and the connected QP pairs of a
// two-host kind.
type hostPairs struct {
	cqa, cqb *nic.CQ
	qa, qb   []*nic.QP
}

// QPs are the pairs' QPs on host a and on host b (QPSource of the
// two-host kinds).
func (p hostPairs) QPs() (a, b []*nic.QP) { return p.qa, p.qb }

// twoHostPairs creates one CQ on each host (depth cqDepth, capped at the
// adapter's MaxCqDepth) with the given visible hooks, and streams connected
// QP pairs: host a's with initiator depth aDepth, host b's with initiator
// depth bDepth and receive depth bRecv.
func twoHostPairs(m *Model, streams int, cqDepth, aDepth, bDepth, bRecv uint32, hookA, hookB sim.Handler) (hostPairs, error) {
	var p hostPairs
	a, b := m.NIC, m.B
	pda, err := m.pd()
	if err != nil {
		return p, err
	}
	pdb, err := m.pdB()
	if err != nil {
		return p, err
	}
	depth := min(cqDepth, a.Spec().MaxCQDepth)
	st, cqa := a.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return p, fmt.Errorf("NdkCreateCq(depth %d) on host a: %v", depth, st)
	}
	st, cqb := b.CreateCQ(depth)
	if st != nic.StatusSuccess {
		return p, fmt.Errorf("NdkCreateCq(depth %d) on host b: %v", depth, st)
	}
	cqa.SetVisibleHook(hookA, 0)
	cqb.SetVisibleHook(hookB, 0)
	p.cqa, p.cqb = cqa, cqb
	for q := 0; q < streams; q++ {
		st, x := a.CreateQP(pda, cqa, uint64(q), aDepth, 0)
		if st != nic.StatusSuccess {
			return p, fmt.Errorf("NdkCreateQp %d of %d on host a: %v", q+1, streams, st)
		}
		st, y := b.CreateQP(pdb, cqb, uint64(q), bDepth, bRecv)
		if st != nic.StatusSuccess {
			return p, fmt.Errorf("NdkCreateQp %d of %d on host b: %v", q+1, streams, st)
		}
		if err := nic.ConnectQPs(x, y); err != nil {
			return p, err
		}
		p.qa, p.qb = append(p.qa, x), append(p.qb, y)
	}
	return p, nil
}

// The flags of each right a file can name: of operations (FastRegister,
// Bind), of MRs, of regions registered in the TPT.
var (
	opRightFlags = map[string]nic.OpFlags{"remote_read": nic.OpAllowRemoteRead, "remote_write": nic.OpAllowRemoteWrite}
	mrRightFlags = map[string]nic.MRFlags{"local_write": nic.MRAllowLocalWrite, "remote_read": nic.MRAllowRemoteRead,
		"remote_write": nic.MRAllowRemoteWrite} // remote write includes local write (docs/ndk.md 3.1)
	regionRights = map[string]mtt.Rights{"local_write": mtt.RightLocalWrite, "remote_read": mtt.RightRemoteRead,
		"remote_write": mtt.RightRemoteWrite}
)

// flagsOf ORs the flags of the named rights.
func flagsOf[F ~uint8 | ~uint16 | ~uint32 | ~uint64](rights []string, table map[string]F) F {
	var f F
	for _, r := range rights {
		f |= table[r]
	}
	return f
}

// inlineFailure is the run error of a post that failed inline: nothing was
// posted and no CQE follows, so a closed loop would retry it at no
// simulated cost, forever at one instant.
func inlineFailure(call string, st nic.Status) error {
	return fmt.Errorf("%s failed inline with %v: the workload posts a request the provider refuses (see docs/nic.md, checks in order)", call, st)
}

// wrPair is one operation of two WRs on one QP, a FastRegister or a Bind
// then the Invalidate: when each was posted, and the first failure.
type wrPair struct {
	firstPosted sim.Tick
	invPosted   sim.Tick
	reason      string
}

// pairLat are the latencies of the two WRs of wrPair operations (post to
// CQE of successful WRs posted after warm-up): first (OpFastRegister or
// OpBind) and the Invalidate.
type pairLat struct {
	first    nic.OpType
	firstLat sim.Histogram
	invLat   sim.Histogram
}

// cqe takes one CQE of operation o: it keeps the first failure and
// measures a successful WR. It reports whether the CQE is the
// Invalidate's, which ends the operation.
func (l *pairLat) cqe(m *Model, now sim.Tick, r *nic.Result, o *wrPair) bool {
	ok := r.Status == nic.StatusSuccess
	if !ok && o.reason == "" {
		o.reason = r.Status.String()
	}
	switch r.Type {
	case l.first:
		if ok {
			m.Measure(&l.firstLat, o.firstPosted, now)
		}
	case nic.OpInvalidate:
		if ok {
			m.Measure(&l.invLat, o.invPosted, now)
		}
		return true
	}
	return false
}

// parts are the two WRs' latencies, the first named first.
func (l *pairLat) parts(first string) []Part {
	return []Part{{Name: first, Lat: &l.firstLat}, {Name: "invalidate", Lat: &l.invLat}}
}

// finish ends operation idx: a failure when it has a reason.
func finish(d Done, now sim.Tick, idx uint64, reason string) {
	if reason != "" {
		d.Fail(now, idx, reason)
		return
	}
	d.Handle(now, idx)
}

// cqConsumer handles one result a drain takes from a CQ; returning false
// stops the drain (the run has failed).
type cqConsumer interface {
	result(now sim.Tick, r *nic.Result) bool
}

// drainCQ is a consumer spinning on a CQ, run from the CQ's visible hook: it
// polls cq into buf until the CQ is empty and hands every result to c, in
// order. It allocates nothing.
func drainCQ(now sim.Tick, a *nic.Adapter, cq *nic.CQ, buf []nic.Result, c cqConsumer) {
	for {
		n := a.PollCQ(cq, buf)
		for i := 0; i < n; i++ {
			if !c.result(now, &buf[i]) {
				return
			}
		}
		if n < len(buf) {
			return
		}
	}
}
