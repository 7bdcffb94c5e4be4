package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// Model is the simulated hardware one run point drives: the NIC's PCIe link
// with its DMA engine, the NIC (the NDK provider and its send-queue
// pipeline) on that link, and the NIC's translation unit. Kinds reach the
// blocks they need through it.
type Model struct {
	Env  *sim.Env
	Link *pcie.Link
	// NIC is the adapter (nic.New on Link and Link.DMA()); kinds create
	// their PDs, CQs, QPs and MRs on it during setup.
	NIC *nic.Adapter
	// TPT is the NIC's own translation unit (NIC.TPT(), built by nic.New
	// from adapter.mtt): regions and the translate kind use the same MPT
	// and MTT state, caches and ICM traffic as the NIC's registrations.
	TPT      *mtt.Translator
	Registry *sim.Registry
	// WarmEnd is when measuring starts (set before the generators start):
	// kinds that keep statistics of their own count only what starts at or
	// after it.
	WarmEnd sim.Tick
	nicPD   *nic.PD // the PD of every NIC object, created by the first kind that needs it
	// B is host b's adapter (on its own link BLink, with its own host
	// memory), joined to NIC by Wire; built only when a generator has a
	// remote kind (rdma_write, rdma_read, send), else nil.
	B          *nic.Adapter
	BLink      *pcie.Link
	Wire       *nic.Wire
	bPD        *nic.PD
	remoteGens int // remote generators built so far (their buffer windows)
	regions    []BuiltRegion
	gens       []*generator
	kickEv     bool
	// endSnap is taken when the last generator completes its measured
	// operations, so that an ops run's window figures end exactly there.
	endSnap *snapshot
	err     error // set by Fail
}

// Measure records in h the latency of a request started at start and
// ended at now, when it started after warm-up (kinds' parts count only
// what starts in the measured window).
func (m *Model) Measure(h *sim.Histogram, start, now sim.Tick) {
	if start >= m.WarmEnd {
		h.Record(uint64(now - start))
	}
}

// Fail stops the run with err (a kind's source found the workload cannot
// go on); RunPoint returns it.
func (m *Model) Fail(err error) {
	if m.err == nil {
		m.err = err
	}
	m.Env.Engine.Stop()
}

// failed is the error that stopped the run: a source's (Fail) or a
// generator's, or nil.
func (m *Model) failed() error {
	if m.err != nil {
		return m.err
	}
	for _, h := range []struct {
		name string
		a    *nic.Adapter
	}{{"a", m.NIC}, {"b", m.B}} {
		if h.a != nil && h.a.Mem().Err() != nil {
			return fmt.Errorf("host %s: %w", h.name, h.a.Mem().Err())
		}
	}
	for _, g := range m.gens {
		if g.err != nil {
			return g.err
		}
	}
	return nil
}

func (m *Model) generatorDone(now sim.Tick) {
	for _, g := range m.gens {
		if !g.done {
			return
		}
	}
	s := takeSnapshot(m, now)
	m.endSnap = &s
	m.Env.Engine.Stop()
}

// BuiltRegion is a region registered in the model.
type BuiltRegion struct {
	workloads.Region
	Token  mtt.Token
	BaseVA uint64 // first byte; VA equals host address
}

// Model block names, as statistics and traces show them.
const (
	LinkName = "NIC.PCIe"
	NICName  = "NIC"
	TPTName  = NICName + ".TPT" // nic.New names its TPT so
	// Host b (remote kinds only): its link, its NIC, the wire.
	BLinkName = "B.NIC.PCIe"
	BNICName  = "B.NIC"
	WireName  = "Wire"
)

// hostBase is where region pages live in host memory (2 MiB-aligned).
const hostBase = 0x10_0000_0000

// Build makes the model of a workload: the link, and the NIC with its
// translation unit on it, from the adapter (the NIC's TPT is adapter.mtt);
// the regions registered; every statistic registered under the model's
// names (the link's under NIC.PCIe, the NIC's under NIC, its TPT's under
// NIC.TPT).
func Build(w *workloads.Workload) (*Model, error) {
	env := sim.NewEnv(w.Run.Seed)
	link, err := pcie.New(LinkName, w.Adapter.PCIe, env, nicClock(w))
	if err != nil {
		return nil, err
	}
	spec := w.Adapter.NIC
	spec.TPT = w.Adapter.MTT
	a, err := nic.New(NICName, spec, env, link, link.DMA())
	if err != nil {
		return nil, err
	}
	m := &Model{Env: env, Link: link, NIC: a, TPT: a.TPT(), Registry: sim.NewRegistry()}
	if err := link.Register(m.Registry); err != nil {
		return nil, err
	}
	if err := a.Register(m.Registry); err != nil {
		return nil, err
	}
	link.DMA().AddWaker(m)
	if w.NeedsHostB() {
		if err := m.buildHostB(w, spec); err != nil {
			return nil, err
		}
	}
	m.capHostMemory(w)
	host := uint64(hostBase)
	for _, r := range w.Regions {
		br, err := m.register(r, host)
		if err != nil {
			return nil, fmt.Errorf("region %q: %w", r.Name, err)
		}
		m.regions = append(m.regions, br)
		host += r.Bytes()
		host = (host + 1<<mtt.PageShift2M - 1) &^ (1<<mtt.PageShift2M - 1)
	}
	return m, nil
}

// capHostMemory holds each host's memory model to the pages the loader
// counted for the generators (Workload.HostPages, within
// host_memory_pages_max): a write past them stops the run with an error.
func (m *Model) capHostMemory(w *workloads.Workload) {
	pa, pb := w.HostPages()
	limit := uint64(w.Adapter.NIC.HostMemoryPagesMax)
	m.NIC.Mem().PagesMax = int(min(pa, limit))
	if m.B != nil {
		m.B.Mem().PagesMax = int(min(pb, limit))
	}
}

// nicClock is the adapter's NIC clock, which the DMA engine runs on.
func nicClock(w *workloads.Workload) sim.ClockDomain {
	return sim.ClockDomain{Name: NICName + ".Clock", Period: sim.Tick(w.Adapter.NIC.ClockPeriodPS)}
}

func (m *Model) register(r workloads.Region, host uint64) (BuiltRegion, error) {
	shift := uint8(mtt.PageShift4K)
	if r.PageBytes == 1<<mtt.PageShift2M {
		shift = mtt.PageShift2M
	}
	rights := flagsOf(r.Rights, regionRights)
	tok, err := m.TPT.Keys().Alloc(mtt.KindMR, 1)
	if err != nil {
		return BuiltRegion{}, err
	}
	off, err := m.TPT.MTT().Alloc(uint32(r.Pages))
	if err != nil {
		return BuiltRegion{}, err
	}
	pages := make([]uint64, r.Pages)
	for i := range pages {
		pages[i] = host + uint64(i)<<shift
	}
	if err := m.TPT.MTT().Set(off, shift, pages); err != nil {
		return BuiltRegion{}, err
	}
	reg := mtt.Region{BaseVA: host, Length: r.Bytes(), Rights: rights, PageShift: shift, MTTOffset: off,
		MTTCount: uint32(r.Pages), XlateVA: host}
	if err := m.TPT.Keys().SetRegion(tok, reg); err != nil {
		return BuiltRegion{}, err
	}
	return BuiltRegion{Region: r, Token: tok, BaseVA: host}, nil
}

// Region finds a registered region by name.
func (m *Model) Region(name string) (*BuiltRegion, bool) {
	for i := range m.regions {
		if m.regions[i].Name == name {
			return &m.regions[i], true
		}
	}
	return nil, false
}

// Wake implements sim.Waker (the DMA engine wakes the model when its queue
// frees room): it kicks blocked generators.
func (m *Model) Wake() { m.Kick() }

// Kick makes every generator that found the model busy try again, in an
// event at the current time (never re-entrantly).
func (m *Model) Kick() {
	if m.kickEv {
		return
	}
	for _, g := range m.gens {
		if g.blocked {
			m.kickEv = true
			m.Env.Engine.After(0, sim.PrioDefault, kickHandler{m}, 0)
			return
		}
	}
}

type kickHandler struct{ m *Model }

func (k kickHandler) Handle(now sim.Tick, _ uint64) {
	k.m.kickEv = false
	for _, g := range k.m.gens {
		if g.blocked {
			g.blocked = false
			g.fill(now)
		}
	}
}

// buildHostB adds host b: its own PCIe link and adapter of the same spec
// (so its own host memory), joined to the NIC by a wire of nic's defaults;
// their statistics register under B.NIC.PCIe and B.NIC.
func (m *Model) buildHostB(w *workloads.Workload, spec nic.Spec) error {
	link, err := pcie.New(BLinkName, w.Adapter.PCIe, m.Env, nicClock(w))
	if err != nil {
		return err
	}
	b, err := nic.New(BNICName, spec, m.Env, link, link.DMA())
	if err != nil {
		return err
	}
	wire, err := nic.NewWire(WireName, w.Adapter.Wire, m.NIC, b)
	if err != nil {
		return err
	}
	if err := link.Register(m.Registry); err != nil {
		return err
	}
	if err := b.Register(m.Registry); err != nil {
		return err
	}
	if err := registerWire(m.Registry, wire); err != nil {
		return err
	}
	m.B, m.BLink, m.Wire = b, link, wire
	return nil
}

// registerWire registers the wire's packet and byte counters per direction
// (AtoB: host a to host b) under WireName.
func registerWire(reg *sim.Registry, w *nic.Wire) error {
	for d, dir := range []string{"AtoB", "BtoA"} {
		p := WireName + "." + dir
		if err := reg.Counter(p+".Packets", "packets", "packets sent "+dir, &w.Stats.Packets[d]); err != nil {
			return err
		}
		if err := reg.Counter(p+".Bytes", "bytes", "bytes sent "+dir+", headers included", &w.Stats.Bytes[d]); err != nil {
			return err
		}
	}
	return nil
}
