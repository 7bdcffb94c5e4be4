package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// MMIO is what the provider needs from the host side of the PCIe link;
// *pcie.Link implements it.
type MMIO interface {
	// MMIOWrite is a host CPU -> NIC posted write; done runs when it has
	// arrived at the NIC.
	MMIOWrite(addr, bytes uint64, done sim.Handler, arg uint64) error
	// MSIX sends an interrupt; done runs when it has reached the host.
	MSIX(done sim.Handler, arg uint64) error
}

// DMA is the NIC's DMA engine; *pcie.DMA implements it (it is mtt.DMA).
type DMA = mtt.DMA

// CreateCompletion is NdkCreateCompletion: the one callback of a pending
// NdkCreateMr, with the final status and, on success, the object.
type CreateCompletion func(ctx uint64, status Status, mr *MR)

// RequestCompletion is NdkRequestCompletion (also used for CloseCompletion):
// the one callback of a pending object call.
type RequestCompletion func(ctx uint64, status Status)

// Event kinds in the top byte of a Handle argument.
const (
	evShift     = 56
	evMask      = 1<<evShift - 1
	evMMIO      = 1 << evShift // doorbell or last WQE store arrived: qpn<<32 | low 32 bits of PI; bit 55: WQE-by-MMIO
	evPageList  = 3 << evShift // page-list read done: engine<<32 | in-flight slot
	evFetch     = 4 << evShift // WQE fetch read done: fetch slot
	evCQE       = 5 << evShift // CQE write done: cqn<<32 | ring slot
	evMSIX      = 6 << evShift // MSI-X reached the host: cqn
	evModTimer  = 7 << evShift // moderation timer: cqn<<32 | generation
	evFirmware  = 8 << evShift // firmware command done: pending-call id
	evInitDone  = 9 << evShift // MPT write of InitializeFastRegisterMr done: pending-call id
	evWriteDone = 10 << evShift
	evFwCmd     = 11 << evShift // firmware command MMIO arrived: command id
	evDataRead  = 12 << evShift // payload DMA read of a Write/Send done: outbound id
	evDataWrite = 13 << evShift // Read data placed in host memory: qpn<<32 | slot
	evMPTRead   = 14 << evShift // validate's MPT entry is on the NIC: engine<<32 | in-flight slot

	mmioWQEBit = 1 << 55
	flushBit   = 1 << 54
	qpnMask    = 1<<22 - 1
)

// Adapter is one NIC with its NDK provider: the objects, the host-side
// posting code and the send-queue pipeline. It is single-threaded, like
// the engine it runs on.
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

	pds     uint32
	qps     []*QP
	cqs     []*CQ
	mrPool  uint32
	pending []pendingCall

	hostMMIO []mmioReq // MMIO writes the CPU could not issue yet (queue full)

	doorbellOverflow []item // doorbell records beyond the doorbell FIFO
	initWaiting      []int  // pending initialisations waiting for a TPT write slot

	fw        firmware // RegisterMr/DeregisterMr command path
	mwByIndex []*MW    // window objects by key-table index
	mrByIndex []*MR    // MR objects by key-table index (READ_SINK check)

	// Remote data path.
	mem       *HostMemory
	wire      *Wire
	wireEnd   int
	resp      responder
	scratch   []uint64
	outbound  []packet // requests executed, waiting to leave in order (payload reads)
	outUsed   []bool
	outReady  []bool
	outQ      []int        // outbound ids in execution order
	dataQ     []dataDMAReq // data DMAs waiting for room in the DMA queue
	dmaRetry  dmaRetry
	fwWaiting bool // the firmware waits for a TPT write slot

	// Pipeline.
	doorbell   *stage
	sched      *scheduler
	fetch      *wqeFetch
	engines    []*engine
	completion *completion
	hazards    []hazard // per key-table index: requests past validate, not yet committed

	// Stats are the adapter's statistics; register them with Register.
	Stats Stats

	// Tracing: when a tracer is attached (AddTracer), every retired request
	// becomes a span from post to retirement on its QP's track, with
	// instants at the doorbell, the WQE fetch and execution.
	trc sim.Tracing
}

// AddTracer attaches a timeline tracer (for example sim.ChromeTrace).
func (a *Adapter) AddTracer(t sim.Tracer) { a.trc.AddTracer(t) }

type mmioReq struct {
	addr, bytes, arg uint64
}

type pendingCall struct {
	create   CreateCompletion
	createMw func(ctx uint64, status Status, mw *MW)
	request  RequestCompletion
	ctx      uint64
	pd       *PD
	fast     bool
	mr       *MR
	used     bool
}

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
		hazards: make([]hazard, spec.TPT.KeyTableEntriesMax)}
	a.fw.a = a
	a.resp.a = a
	a.dmaRetry.a = a
	a.mem = NewHostMemory(int(spec.HostMemoryPagesMax))
	if err := a.build(); err != nil {
		return nil, err
	}
	return a, nil
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

var _ sim.Handler = (*Adapter)(nil)

// Handle receives MMIO arrivals, DMA completions, timers and firmware
// completions.
func (a *Adapter) Handle(now sim.Tick, arg uint64) {
	switch arg &^ evMask {
	case evMMIO:
		a.retryHostMMIO()
		a.doorbellArrived(now, arg&evMask)
	case evPageList:
		a.engines[(arg&evMask)>>32].pageList.asyncDone(now, uint32(arg))
	case evMPTRead:
		a.engines[(arg&evMask)>>32].validate.asyncDone(now, uint32(arg))
	case evFetch:
		a.fetch.readDone(now, uint32(arg))
	case evCQE:
		a.completion.cqeDone(now, uint32((arg&evMask)>>32), uint32(arg))
	case evMSIX:
		a.msixDone(now, uint32(arg&evMask))
	case evModTimer:
		a.moderationTimer(now, uint32((arg&evMask)>>32), uint64(uint32(arg)))
	case evFirmware:
		a.firmwareDone(now, int(arg&evMask))
	case evInitDone:
		a.initDone(now, int(arg&evMask))
	case evWriteDone:
		a.writeDone()
	case evDataRead:
		a.dataReadDone(int(arg & evMask))
	case evDataWrite:
		a.finishRemote(a.qps[(arg&evMask)>>32], uint64(uint32(arg)), now)
	case evFwCmd:
		a.retryHostMMIO()
		a.fw.arrived(int(arg & evMask))
	default:
		panic(fmt.Sprintf("nic: %s: unknown event %#x", a.name, arg))
	}
}

// issueMMIO sends one MMIO write from the host CPU, or queues it behind
// earlier ones when the CPU's MMIO queue is full.
func (a *Adapter) issueMMIO(addr, bytes, arg uint64) {
	if len(a.hostMMIO) == 0 {
		if err := a.mmio.MMIOWrite(addr, bytes, a, arg); err == nil {
			return
		}
	}
	a.Stats.HostMMIOBacklog++
	a.hostMMIO = append(a.hostMMIO, mmioReq{addr, bytes, arg})
}

func (a *Adapter) retryHostMMIO() {
	for len(a.hostMMIO) > 0 {
		r := a.hostMMIO[0]
		if err := a.mmio.MMIOWrite(r.addr, r.bytes, a, r.arg); err != nil {
			return
		}
		a.hostMMIO = a.hostMMIO[1:]
	}
}

// writeDone runs when a TPT registration write has left the NIC: stages
// waiting for a write slot may go on, and so may pending initialisations.
func (a *Adapter) writeDone() {
	for len(a.initWaiting) > 0 && a.tpt.CanWrite() {
		id := a.initWaiting[0]
		a.initWaiting = a.initWaiting[1:]
		a.writeInitMPT(id)
	}
	if a.fwWaiting && a.tpt.CanWrite() {
		a.fwWaiting = false
		a.fw.advance()
	}
	for _, e := range a.engines {
		e.mttWrite.drv.Wake()
		e.mptUpdate.drv.Wake()
	}
}

func (a *Adapter) addPending(p pendingCall) int {
	for i := range a.pending {
		if !a.pending[i].used {
			p.used = true
			a.pending[i] = p
			return i
		}
	}
	p.used = true
	a.pending = append(a.pending, p)
	return len(a.pending) - 1
}

func (a *Adapter) takePending(id int) pendingCall {
	p := a.pending[id]
	a.pending[id] = pendingCall{}
	return p
}
