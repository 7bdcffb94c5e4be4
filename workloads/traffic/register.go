package traffic

import (
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// register_mr: one operation is NdkRegisterMr of a normal MR, then
// NdkDeregisterMr of it, both through the provider's firmware command path
// (docs/nic.md; docs/sources.md 4: a fixed firmware cost per command plus a
// per-page pin/unpin cost on the host). The operation completes with the
// DeregisterMr callback. The firmware runs one command at a time, so more
// than one operation in flight queues.
//
// Objects (set up before warm-up, pending calls run to completion): one PD
// per model and one normal MR (NdkCreateMr, FastRegister FALSE) per
// operation slot (streams x outstanding).

type regOp struct {
	mr       *nic.MR
	base     uint64
	pages    uint32
	regStart sim.Tick
	deStart  sim.Tick
}

type regMRSource struct {
	m      *Model
	a      *nic.Adapter
	p      *workloads.RegisterMRParams
	rng    *rand.Rand
	done   Done
	flags  nic.MRFlags
	ops    []regOp
	chain  []nic.MDL
	regLat sim.Histogram
	deLat  sim.Histogram
	// onRegistered and onDeregistered are the completion callbacks,
	// bound once: a method value made at each call would be allocated.
	onRegistered, onDeregistered nic.RequestCompletion
}

// regPageBase is where register_mr's slots' pages start (host addresses,
// one slot after the other).
const regPageBase = 0x50_0000_0000

func newRegMRSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*workloads.RegisterMRParams)
	s := &regMRSource{m: m, a: m.NIC, p: p, rng: rng, flags: flagsOf(p.Rights, mrRightFlags),
		ops: make([]regOp, g.Streams*g.Outstanding), chain: make([]nic.MDL, 0, p.Pieces)}
	s.onRegistered, s.onDeregistered = s.registered, s.deregistered
	pd, err := m.pd()
	if err != nil {
		return nil, err
	}
	span := p.Pages.Largest() * nic.PageSizeBytes
	su := &setup{m: m}
	if err := su.normalMRs(pd, len(s.ops), func(i int, mr *nic.MR) {
		s.ops[i].mr = mr
		s.ops[i].base = regPageBase + uint64(i)*span
	}); err != nil {
		return nil, err
	}
	if err := su.run(); err != nil {
		return nil, err
	}
	return s, nil
}

// Start issues the NdkRegisterMr of one operation (always PENDING).
func (s *regMRSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.pages = uint32(s.p.Pages.Sample(s.rng))
	op.Units = uint64(o.pages)
	pieces := uint64(min(s.p.Pieces, o.pages))
	s.chain = s.chain[:0]
	va := o.base
	for k := uint64(0); k < pieces; k++ {
		n := uint64(o.pages) / pieces
		if k < uint64(o.pages)%pieces {
			n++
		}
		s.chain = append(s.chain, nic.MDL{VirtualAddress: va, ByteCount: n * nic.PageSizeBytes})
		va += n * nic.PageSizeBytes
	}
	o.regStart = now
	if st := s.a.RegisterMr(o.mr, s.chain, uint64(o.pages)*nic.PageSizeBytes, s.flags, s.onRegistered, op.Index); st != nic.StatusPending {
		s.m.Fail(inlineFailure("NdkRegisterMr", st))
		return nil
	}
	return nil
}

// called takes the callback of a firmware call of operation idx issued
// at start: a failure ends the operation; a success is measured in lat.
// It returns the time and whether the call succeeded.
func (s *regMRSource) called(idx uint64, st nic.Status, start sim.Tick, lat *sim.Histogram) (sim.Tick, bool) {
	now := s.m.Env.Engine.Now()
	if st != nic.StatusSuccess {
		s.done.Fail(now, idx, st.String())
		return now, false
	}
	s.m.Measure(lat, start, now)
	return now, true
}

func (s *regMRSource) registered(idx uint64, st nic.Status) {
	o := &s.ops[idx]
	now, ok := s.called(idx, st, o.regStart, &s.regLat)
	if !ok {
		return
	}
	o.deStart = now
	if st := s.a.DeregisterMr(o.mr, s.onDeregistered, idx); st != nic.StatusPending {
		s.m.Fail(inlineFailure("NdkDeregisterMr", st))
	}
}

func (s *regMRSource) deregistered(idx uint64, st nic.Status) {
	if now, ok := s.called(idx, st, s.ops[idx].deStart, &s.deLat); ok {
		s.done.Handle(now, idx)
	}
}

// Parts reports the RegisterMr and DeregisterMr latencies (call to
// callback, successful calls issued after warm-up).
func (s *regMRSource) Parts() []Part {
	return []Part{{Name: "register", Lat: &s.regLat}, {Name: "deregister", Lat: &s.deLat}}
}

// Figure: NdkRegisterMr moves no payload; it registers pages.
func (s *regMRSource) Figure() (string, string) { return "registered_pages", "Mpages/s" }

// Scope: host a's driver thread, firmware, translation unit and PCIe link:
// a registration never enters the posting cores or the send-queue pipeline.
func (s *regMRSource) Scope() Scope { return ScopeFirmware }

// UsesFirmware: every operation is two firmware commands.
func (s *regMRSource) UsesFirmware() bool { return true }

func init() { RegisterSource("register_mr", newRegMRSource) }
