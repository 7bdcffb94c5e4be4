package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// MMIO is what the provider needs from the host side of the PCIe link;
// *pcie.Link implements it.
type MMIO interface {
	// AddMMIOSource adds a source of MMIO writes (a posting core, the
	// driver thread), whose issue path is metered as name+".MMIO", and
	// returns its number.
	AddMMIOSource(name string) (uint32, error)
	// MMIOWrite is a host CPU -> NIC posted write from source src; done
	// runs when it has arrived at the NIC.
	MMIOWrite(addr, bytes uint64, src uint32, done sim.Handler, arg uint64) error
	// MSIX sends an interrupt; done runs when it has reached the host.
	MSIX(done sim.Handler, arg uint64) error
}

// DMA is the NIC's DMA engine; *pcie.DMA implements it. The TPT uses it
// as an mtt.DMA; the NIC's own blocks ask for room on the path they use
// (reads and writes have separate request queues, docs/pcie.md), so a
// read never waits for room in a full write queue, nor a write for room
// in the read queue.
type DMA interface {
	mtt.DMA
	CanAcceptRead() bool  // room in the read queue (pcie.DMA.CanAcceptRead)
	CanAcceptWrite() bool // room in the write queue (pcie.DMA.CanAcceptWrite)
}

// CreateCompletion is NdkCreateCompletion: the one callback of a pending
// NdkCreateMr, with the final status and, on success, the object.
type CreateCompletion func(ctx uint64, status Status, mr *MR)

// RequestCompletion is NdkRequestCompletion (also used for CloseCompletion):
// the one callback of a pending object call.
type RequestCompletion func(ctx uint64, status Status)

// Every block handles its own completions (sim.Handler); one with several
// kinds of event keeps the kind in the argument's top byte, above evMask.
const (
	evShift = 56
	evMask  = 1<<evShift - 1
)

// Adapter is one NIC with its NDK provider: the objects, the host-side
// posting code, and the hardware blocks, each a type of its own wired by
// build (pipeline.go). It is single-threaded, like the engine it runs on.
type Adapter struct {
	name  string
	spec  Spec
	info  AdapterInfo
	env   *sim.Env
	eng   *sim.Engine
	clock sim.ClockDomain
	mmio  MMIO
	dma   DMA
	tpt   *mtt.Translator
	host  hostMem

	// NDK objects.
	pds     uint32
	qps     []*QP
	cqs     []*CQ
	mrPool  uint32
	nMRs    uint32      // MR objects in existence (Spec.MRsMax)
	nMWs    uint32      // MW objects in existence (Spec.MWsMax)
	mrs     byIndex[MR] // MR objects by key-table index (READ_SINK, remote invalidation)
	mws     byIndex[MW] // window objects by key-table index (remote invalidation)
	mem     *HostMemory
	wire    *Wire
	wireEnd int

	// Host side: the posting cores, the CPU's MMIO writes, and object calls
	// waiting for the NIC.
	cores hostCPU
	cpu   mmioQueue
	calls pendingCalls

	// Hardware blocks (pipeline.go wires them).
	doorbell   *doorbell
	sched      *scheduler
	fetch      *wqeFetch
	engines    []*engine
	completion *completion
	stages     []*stage // every pipeline stage, for settle
	irq        interrupts
	hazards    scoreboard
	tptWrites  tptWriters
	fw         firmware
	req        requester
	resp       responder
	dataDMA    dmaQueue

	// Stats are the adapter's statistics; register them with Register.
	Stats Stats

	buildErr error // the first error building the adapter (a meter name taken)

	// Tracing: when a tracer is attached (AddTracer), every retired request
	// becomes a span from post to retirement on its QP's track, with
	// instants at the doorbell, the WQE fetch and execution.
	trc sim.Tracing
}

// AddTracer attaches a timeline tracer (for example sim.ChromeTrace).
func (a *Adapter) AddTracer(t sim.Tracer) { a.trc.AddTracer(t) }

// New builds the adapter named name (e.g. "NIC") on env. mmio is the host
// side of the PCIe link, dma the NIC's DMA engine; every PCIe transfer of
// the adapter and of its TPT goes through them.
func New(name string, spec Spec, env *sim.Env, mmio MMIO, dma DMA) (*Adapter, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if mmio == nil || dma == nil {
		return nil, fmt.Errorf("nic: %s: nil MMIO or DMA", name)
	}
	clock, err := sim.NewClockDomain(name+".Clock", sim.Tick(spec.ClockPeriodPS))
	if err != nil {
		return nil, err
	}
	tpt, err := mtt.New(name+".TPT", spec.TPT, dma, env)
	if err != nil {
		return nil, err
	}
	a := &Adapter{name: name, spec: spec, info: spec.Info(), env: env, eng: env.Engine, clock: clock,
		mmio: mmio, dma: dma, tpt: tpt, host: hostMem{next: spec.HostBaseAddr}, mrPool: spec.MRPoolEntries,
		mem: NewHostMemory(int(spec.HostMemoryPagesMax))}
	if err := a.build(); err != nil {
		return nil, err
	}
	return a, nil
}

// meter registers a meter on the adapter's simulation. A name already
// taken (two adapters of one name on one engine) is the adapter's error,
// which New returns; the block gets a meter of its own so it runs anyway.
func (a *Adapter) meter(name, unit string, capacity uint64) *sim.Meter {
	m, err := a.env.Meters.New(name, unit, max(capacity, 1))
	if err != nil {
		if a.buildErr == nil {
			a.buildErr = err
		}
		m, _ = sim.NewMeters().New(name, unit, max(capacity, 1))
	}
	return m
}

// mmioSource adds the MMIO source named name (a core, the driver thread)
// on the link; an error is the adapter's, as meter's is.
func (a *Adapter) mmioSource(name string) uint32 {
	src, err := a.mmio.AddMMIOSource(name)
	if err != nil && a.buildErr == nil {
		a.buildErr = err
	}
	return src
}

// Name is the adapter's hierarchical name.
func (a *Adapter) Name() string { return a.name }

// Spec is the configuration the adapter was built with.
func (a *Adapter) Spec() Spec { return a.spec }

// Info is NdkQueryAdapterInfo: the adapter's NDK_ADAPTER_INFO.
func (a *Adapter) Info() AdapterInfo { return a.info }

// TPT is the translation and protection unit: all MPT/MTT state.
func (a *Adapter) TPT() *mtt.Translator { return a.tpt }

// Clock is the NIC clock.
func (a *Adapter) Clock() sim.ClockDomain { return a.clock }

// Now is the current simulated time.
func (a *Adapter) Now() sim.Tick { return a.eng.Now() }

// mmioQueue is the host CPU's MMIO writes: sent at once, or, with the link's
// MMIO queue full, held in order until an earlier write arrives.
type mmioQueue struct {
	a    *Adapter
	held sim.FIFO[mmioReq]
}

type mmioReq struct {
	addr, bytes uint64
	src         uint32
	h           sim.Handler
	arg         uint64
}

// issue sends one MMIO write from source src (a core's, the driver
// thread's) whose arrival h.Handle(now, arg) handles.
func (q *mmioQueue) issue(addr, bytes uint64, src uint32, h sim.Handler, arg uint64) {
	if q.held.Len() == 0 {
		if err := q.a.mmio.MMIOWrite(addr, bytes, src, h, arg); err == nil {
			return
		}
	}
	q.a.Stats.HostMMIOBacklog++
	q.held.Push(mmioReq{addr, bytes, src, h, arg})
}

// retry sends held writes while the link takes them; every arrival calls it.
func (q *mmioQueue) retry() {
	for q.held.Len() > 0 {
		r := q.held.Peek()
		if err := q.a.mmio.MMIOWrite(r.addr, r.bytes, r.src, r.h, r.arg); err != nil {
			return
		}
		q.held.Pop() // the link holds its handler now
	}
}
