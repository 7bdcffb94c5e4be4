package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// register_mr: one operation is NdkRegisterMr of `pages` 4 KiB pages of a
// normal MR (one MDL piece, or `pieces` page-aligned pieces), then
// NdkDeregisterMr of it, both through the provider's firmware command path
// (docs/nic.md; docs/sources.md 4: a fixed firmware cost per command plus a
// per-page pin/unpin cost on the host). The operation completes with the
// DeregisterMr callback; the parts `register` and `deregister` are each
// call's own latency, call to callback. The firmware runs one command at a
// time, so more than one operation in flight queues.
//
// Objects (set up before warm-up, pending calls run to completion): one PD
// per model and one normal MR (NdkCreateMr, FastRegister FALSE) per
// operation slot (streams x outstanding).

type regMRParams struct {
	Pages  Dist     `yaml:"pages" json:"pages" check:"1..262144"`
	Pieces uint32   `yaml:"pieces" json:"pieces" check:"1..64"`
	Rights []string `yaml:"rights" json:"rights" check:"len:0..3 local_write|remote_read|remote_write"`
}

func newRegMRParams() any {
	return &regMRParams{Pages: Fixed(1), Pieces: 1, Rights: []string{"local_write", "remote_read", "remote_write"}}
}

func mrFlagsOf(rights []string) nic.MRFlags {
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

// nicMTTUse counts the key-table and MTT entries the NIC generators of w
// (fast_register_invalidate, bind_invalidate, register_mr) and the regions
// need at most.
func nicMTTUse(w *Workload) (keys, mtt uint64) {
	for i := range w.Generators {
		g := &w.Generators[i]
		slots := uint64(g.Streams * g.Outstanding)
		switch p := g.Params.(type) {
		case *frInvParams:
			keys += slots
			mtt += slots * uint64(p.mrPages())
		case *bindParams:
			keys += slots + uint64(g.Streams)
			mtt += uint64(g.Streams) * uint64(p.MRPages)
		case *regMRParams:
			keys += slots
			mtt += slots * p.Pages.Largest()
		}
	}
	for _, r := range w.Regions {
		keys++
		mtt += r.Pages
	}
	return keys, mtt
}

func checkRegMR(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*regMRParams)
	a := &w.Adapter.NIC
	if b := p.Pages.Largest() * nic.PageSizeBytes; b > a.MaxRegistrationSizeBytes {
		c.Errorf("pages", "pages up to %d (%d bytes) exceed adapter.nic.max_registration_size_bytes = %d (NDK_ADAPTER_INFO.MaxRegistrationSize)",
			p.Pages.Largest(), b, a.MaxRegistrationSizeBytes)
	}
	keys, mtt := nicMTTUse(w)
	if keys > uint64(w.Adapter.MTT.KeyTableEntriesMax) {
		c.Errorf("outstanding", "the NIC generators' MRs and windows and the regions need %d key-table entries, more than adapter.mtt.key_table_entries_max = %d",
			keys, w.Adapter.MTT.KeyTableEntriesMax)
	}
	if mtt > uint64(w.Adapter.MTT.MTTEntriesMax) {
		c.Errorf("pages", "the NIC generators' MRs (streams x outstanding x pages for register_mr) and the regions need %d MTT entries, more than adapter.mtt.mtt_entries_max = %d",
			mtt, w.Adapter.MTT.MTTEntriesMax)
	}
}

// createNormalMRs creates n normal MRs (NdkCreateMr, FastRegister FALSE)
// and runs their pending calls to completion; then(i, mr) runs for each as
// it arrives and may issue further pending calls, counted with *waiting.
func createNormalMRs(m *Model, pd *nic.PD, n int, waiting *int, fail func(error), then func(i int, mr *nic.MR)) error {
	a := m.NIC
	for i := 0; i < n; i++ {
		i := i
		*waiting++
		st, mr := a.CreateMr(pd, false, func(_ uint64, st nic.Status, mr *nic.MR) {
			defer func() { *waiting-- }()
			if st != nic.StatusSuccess {
				fail(fmt.Errorf("NdkCreateMr completed %v", st))
				return
			}
			then(i, mr)
		}, uint64(i))
		switch st {
		case nic.StatusSuccess:
			*waiting--
			then(i, mr)
		case nic.StatusPending:
		default:
			return fmt.Errorf("NdkCreateMr %d of %d: %v", i+1, n, st)
		}
	}
	return nil
}

// runSetup runs the engine until *waiting is 0, in steps of setupStep.
func runSetup(m *Model, waiting *int, err *error) error {
	eng := m.Env.Engine
	for step := 0; *waiting > 0 && *err == nil; step++ {
		if step >= setupStepsMax {
			return fmt.Errorf("setup: %d creation calls still pending after %v of simulated time", *waiting, setupStep*setupStepsMax)
		}
		eng.RunUntil(eng.Now() + setupStep)
	}
	return *err
}

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
	p      *regMRParams
	rng    *rand.Rand
	done   Done
	flags  nic.MRFlags
	ops    []regOp
	chain  []nic.MDL
	regLat sim.Histogram
	deLat  sim.Histogram
}

// regPageBase is where register_mr's slots' pages start (host addresses,
// one slot after the other).
const regPageBase = 0x50_0000_0000

func newRegMRSource(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*regMRParams)
	s := &regMRSource{m: m, a: m.NIC, p: p, rng: rng, flags: mrFlagsOf(p.Rights),
		ops: make([]regOp, g.Streams*g.Outstanding), chain: make([]nic.MDL, 0, p.Pieces)}
	pd, err := m.pd()
	if err != nil {
		return nil, err
	}
	span := p.Pages.Largest() * nic.PageSizeBytes
	var setupErr error
	waiting := 0
	fail := func(e error) {
		if setupErr == nil {
			setupErr = e
		}
	}
	if err := createNormalMRs(m, pd, len(s.ops), &waiting, fail, func(i int, mr *nic.MR) {
		s.ops[i].mr = mr
		s.ops[i].base = regPageBase + uint64(i)*span
	}); err != nil {
		return nil, err
	}
	if err := runSetup(m, &waiting, &setupErr); err != nil {
		return nil, err
	}
	return s, nil
}

// Start issues the NdkRegisterMr of one operation (always PENDING).
func (s *regMRSource) Start(now sim.Tick, op *Op, done Done) error {
	s.done = done
	o := &s.ops[op.Index]
	o.pages = uint32(s.p.Pages.Sample(s.rng))
	op.Bytes = uint64(o.pages) * nic.PageSizeBytes
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
	if st := s.a.RegisterMr(o.mr, s.chain, op.Bytes, s.flags, s.registered, op.Index); st != nic.StatusPending {
		s.m.Fail(inlineFailure("NdkRegisterMr", st))
		return nil
	}
	return nil
}

func (s *regMRSource) registered(idx uint64, st nic.Status) {
	now := s.m.Env.Engine.Now()
	o := &s.ops[idx]
	if st != nic.StatusSuccess {
		s.done.Fail(now, idx, st.String())
		return
	}
	if o.regStart >= s.m.WarmEnd {
		s.regLat.Record(uint64(now - o.regStart))
	}
	o.deStart = now
	if st := s.a.DeregisterMr(o.mr, s.deregistered, idx); st != nic.StatusPending {
		s.m.Fail(inlineFailure("NdkDeregisterMr", st))
	}
}

func (s *regMRSource) deregistered(idx uint64, st nic.Status) {
	now := s.m.Env.Engine.Now()
	o := &s.ops[idx]
	if st != nic.StatusSuccess {
		s.done.Fail(now, idx, st.String())
		return
	}
	if o.deStart >= s.m.WarmEnd {
		s.deLat.Record(uint64(now - o.deStart))
	}
	s.done.Handle(now, idx)
}

// Parts reports the RegisterMr and DeregisterMr latencies (call to
// callback, successful calls issued after warm-up).
func (s *regMRSource) Parts() []Part {
	return []Part{{Name: "register", Lat: &s.regLat}, {Name: "deregister", Lat: &s.deLat}}
}

func init() {
	RegisterKind(Kind{Name: "register_mr",
		Summary: "NdkRegisterMr of a normal MR then NdkDeregisterMr of it, through the firmware command path; parts register and deregister",
		Params:  newRegMRParams, Check: checkRegMR, New: newRegMRSource})
}
