package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// Setup of the NIC kinds' objects: sources create their PDs, CQs, QPs, MRs
// and windows when they are built, and run the engine until every pending
// creation call has completed, before warm-up.

// Setup runs in steps of setupStep, at most setupStepsMax of them (1 s of
// simulated time: 20000 firmware commands of 50 µs in a row).
const (
	setupStep     = 100 * sim.US
	setupStepsMax = 10000
)

// setup counts one source's pending creation calls and keeps the first
// error a call reported.
type setup struct {
	m       *Model
	waiting int
	err     error
}

// fail records e unless an error came first.
func (s *setup) fail(e error) {
	if s.err == nil {
		s.err = e
	}
}

// run runs the engine until no call is pending, in steps of setupStep, and
// returns the first error.
func (s *setup) run() error {
	eng := s.m.Env.Engine
	for step := 0; s.waiting > 0 && s.err == nil; step++ {
		if step >= setupStepsMax {
			return fmt.Errorf("setup: %d creation calls still pending after %v of simulated time", s.waiting, setupStep*setupStepsMax)
		}
		eng.RunUntil(eng.Now() + setupStep)
	}
	return s.err
}

// normalMRs creates n normal MRs (NdkCreateMr, FastRegister FALSE) on the
// model's NIC; then(i, mr) runs for each as it arrives and may issue
// further pending calls, counted in s.waiting.
func (s *setup) normalMRs(pd *nic.PD, n int, then func(i int, mr *nic.MR)) error {
	a := s.m.NIC
	for i := 0; i < n; i++ {
		s.waiting++
		st, mr := a.CreateMr(pd, false, func(_ uint64, st nic.Status, mr *nic.MR) {
			defer func() { s.waiting-- }()
			if st != nic.StatusSuccess {
				s.fail(fmt.Errorf("NdkCreateMr completed %v", st))
				return
			}
			then(i, mr)
		}, uint64(i))
		switch st {
		case nic.StatusSuccess:
			s.waiting--
			then(i, mr)
		case nic.StatusPending:
		default:
			return fmt.Errorf("NdkCreateMr %d of %d: %v", i+1, n, st)
		}
	}
	return nil
}

// registerOne creates a normal MR on a and registers [va, +length) with
// flags on it (physical = virtual), setting *out once created.
func (s *setup) registerOne(a *nic.Adapter, pd *nic.PD, va, length uint64, flags nic.MRFlags, out **nic.MR) error {
	reg := func(mr *nic.MR) {
		*out = mr
		s.waiting++
		st := a.RegisterMr(mr, []nic.MDL{{VirtualAddress: va, ByteCount: length}}, length, flags, func(_ uint64, st nic.Status) {
			s.waiting--
			if st != nic.StatusSuccess {
				s.fail(fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x) completed %v", length, uint32(flags), st))
			}
		}, 0)
		if st != nic.StatusPending {
			s.waiting--
			if st != nic.StatusSuccess {
				s.fail(fmt.Errorf("NdkRegisterMr(%d bytes, flags %#x): %v", length, uint32(flags), st))
			}
		}
	}
	s.waiting++
	st, mr := a.CreateMr(pd, false, func(_ uint64, st nic.Status, mr *nic.MR) {
		s.waiting--
		if st != nic.StatusSuccess {
			s.fail(fmt.Errorf("NdkCreateMr completed %v", st))
			return
		}
		reg(mr)
	}, 0)
	switch st {
	case nic.StatusSuccess:
		s.waiting--
		reg(mr)
	case nic.StatusPending:
	default:
		return fmt.Errorf("NdkCreateMr: %v", st)
	}
	return nil
}

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

// pdB returns host b's protection domain, created on first use.
func (m *Model) pdB() (*nic.PD, error) {
	if m.bPD == nil {
		st, pd := m.B.CreatePD()
		if st != nic.StatusSuccess {
			return nil, fmt.Errorf("NdkCreatePd on host b: %v", st)
		}
		m.bPD = pd
	}
	return m.bPD, nil
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

// opRights are the operation flags of a list of remote rights.
func opRights(rights []string) nic.OpFlags {
	var f nic.OpFlags
	for _, r := range rights {
		switch r {
		case "remote_read":
			f |= nic.OpAllowRemoteRead
		case "remote_write":
			f |= nic.OpAllowRemoteWrite
		}
	}
	return f
}

// mrFlags are the MR flags of a list of rights.
func mrFlags(rights []string) nic.MRFlags {
	var f nic.MRFlags
	for _, r := range rights {
		switch r {
		case "local_write":
			f |= nic.MRAllowLocalWrite
		case "remote_read":
			f |= nic.MRAllowRemoteRead
		case "remote_write":
			f |= nic.MRAllowRemoteWrite // includes local write (docs/ndk.md 3.3)
		}
	}
	return f
}

// inlineFailure is the run error of a post that failed inline: nothing was
// posted and no CQE follows, so a closed loop would retry it at no
// simulated cost, forever at one instant.
func inlineFailure(call string, st nic.Status) error {
	return fmt.Errorf("%s failed inline with %v: the workload posts a request the provider refuses (see docs/nic.md, checks in order)", call, st)
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
			r := buf[i]
			if !c.result(now, &r) {
				return
			}
		}
		if n < len(buf) {
			return
		}
	}
}
