package nic

import (
	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// opKind indexes per-operation statistics: the send-queue operations, the
// receives, and the firmware-path registration calls.
type opKind uint8

const (
	kindFastRegister opKind = iota
	kindInvalidate
	kindBind
	kindSend
	kindRead
	kindWrite
	kindReceive
	kindRegisterMr   // firmware command path: NdkRegisterMr
	kindDeregisterMr // firmware command path: NdkDeregisterMr
	opKinds
)

var opKindNames = [opKinds]string{"FastRegister", "Invalidate", "Bind", "Send", "Read", "Write", "Receive", "RegisterMr", "DeregisterMr"}

// purpose classifies PCIe bytes.
type purpose uint8

const (
	purposeDoorbell purpose = iota // 8 B doorbell MMIO writes
	purposeWQE                     // WQE DMA reads and WQE-by-MMIO stores
	purposePageList                // page-list DMA reads
	purposeMTTWrite                // MTT entries written to ICM
	purposeMPTWrite                // MPT entries written to ICM
	purposeCQE                     // CQE DMA writes
	purposes
)

var purposeNames = [purposes]string{"Doorbell", "WQE", "PageList", "MTTWrite", "MPTWrite", "CQE"}

// OpStats are one operation type's statistics. Latencies run from the post
// (the provider call) to each milestone, in ps.
type OpStats struct {
	Posted     uint64 `stat:"Posted" unit:"requests" desc:"requests posted (inline success)"`
	Completed  uint64 `stat:"Completed" unit:"requests" desc:"requests retired by the completion engine"`
	CQEs       uint64 `stat:"CQEs" unit:"CQEs" desc:"CQEs made visible in host memory"`
	Errors     uint64 `stat:"Errors" unit:"requests" desc:"requests retired with an error or STATUS_CANCELLED"`
	FirstPost  sim.Tick
	LastRetire sim.Tick
	PCIeBytes  [purposes]uint64 // PCIe bytes this operation caused, by purpose
	// The histograms, each several kB, come after the counters a
	// retirement updates, which share two cache lines.
	ToDoorbellPS sim.Histogram `stat:"Latency.PostToDoorbellPS" unit:"ps" desc:"post to doorbell processed by the NIC"`
	ToFetchedPS  sim.Histogram `stat:"Latency.PostToFetchedPS" unit:"ps" desc:"post to WQE on the NIC and handed to the engine"`
	ToExecutedPS sim.Histogram `stat:"Latency.PostToExecutedPS" unit:"ps" desc:"post to commit (MPT update) or flush"`
	ToCQEPS      sim.Histogram `stat:"Latency.PostToCQEPS" unit:"ps" desc:"post to CQE visible in host memory"`
}

// StageStats are one stage kind's statistics, summed over engines.
type StageStats struct {
	Name         string // the stage kind: NIC.Stage.<Name>
	Items        uint64 `stat:"Items" unit:"items" desc:"items that left the stage"`
	ResidencyPS  uint64 `stat:"ResidencyPS" unit:"ps" desc:"sum of item residency (occupancy x time)"` // occupancy = this / elapsed
	OutStalls    uint64 `stat:"OutStalls" unit:"events" desc:"finished items that found the next queue full"`
	StallPS      uint64 `stat:"StallPS" unit:"ps" desc:"time finished items waited for the next queue"`
	AcceptStalls uint64 `stat:"AcceptStalls" unit:"cycles" desc:"cycles an item could not start for a busy resource"` // DMA, TPT, hazard, fetch limit
}

// Stats are the adapter's statistics: plain counters and histograms updated
// by field access, registered once by Register (the tags name, unit and
// describe each, under the adapter's name).
type Stats struct {
	Ops    [opKinds]OpStats
	Stages []*StageStats // in pipeline order

	Doorbells               uint64 `stat:"Doorbell.Doorbells" unit:"writes" desc:"doorbell MMIO writes that reached the NIC"`
	MMIOWQEs                uint64 `stat:"Doorbell.MMIOWQEs" unit:"WQEs" desc:"WQEs written by WQE-by-MMIO that reached the NIC"`
	DoorbellOverflow        uint64 `stat:"Doorbell.Overflow" unit:"records" desc:"doorbell records beyond the doorbell FIFO"`
	HostMMIOBacklog         uint64 `stat:"Host.MMIOBacklog" unit:"writes" desc:"MMIO writes the CPU had to queue"`
	SchedulerStalls         uint64 `stat:"Scheduler.Stalls" unit:"cycles" desc:"decisions waiting for room in the fetch queue"`
	Flushed                 uint64 `stat:"Scheduler.Flushed" unit:"requests" desc:"requests cancelled by the flush path"`
	WQEFetches              uint64 `stat:"WQEFetch.Reads" unit:"reads" desc:"WQE DMA reads"`
	WQEsFetched             uint64 `stat:"WQEFetch.WQEs" unit:"WQEs" desc:"WQEs read by DMA"`
	FetchStalls             uint64 `stat:"WQEFetch.EngineStalls" unit:"cycles" desc:"fetched WQEs waiting for room in an engine queue"`
	FetchDMAStalls          uint64 `stat:"WQEFetch.DMAStalls" unit:"cycles" desc:"fetches waiting for room in the DMA queue"`
	MPTReads                uint64 `stat:"Validate.MPTReads" unit:"reads" desc:"key-table entries read through the MPT cache by validate"`
	MPTReadStalls           uint64 `stat:"Validate.MPTReadStalls" unit:"stalls" desc:"validate waiting for a free TPT request slot"`
	HazardStalls            uint64 `stat:"Validate.HazardStalls" unit:"cycles" desc:"requests waiting for an earlier request on the same MR"`
	ReadFenceStalls         uint64 `stat:"Validate.ReadFenceStalls" unit:"cycles" desc:"READ_FENCE requests waiting for earlier reads"`
	ErrorCompletions        uint64 `stat:"Validate.ErrorCompletions" unit:"requests" desc:"requests that failed in the NIC (QP to error)"`
	PageListFetches         uint64 `stat:"PageList.Fetches" unit:"reads" desc:"page-list DMA reads"`
	PageListDMAStalls       uint64 `stat:"PageList.DMAStalls" unit:"cycles" desc:"page-list reads waiting for room in the DMA queue"`
	TPTWriteStalls          uint64 `stat:"TPT.WriteStalls" unit:"cycles" desc:"MTT/MPT writes waiting for a TPT write slot"`
	InitMPTWrites           uint64 `stat:"InitializeFastRegisterMr.MPTWrites" unit:"writes" desc:"MPT writes of NdkInitializeFastRegisterMr"`
	CQEs                    uint64 `stat:"Completion.CQEs" unit:"CQEs" desc:"CQE writes issued"`
	Silent                  uint64 `stat:"Completion.Silent" unit:"requests" desc:"successful SILENT_SUCCESS requests retired without CQE"`
	CQFullStalls            uint64 `stat:"Completion.CQFullStalls" unit:"events" desc:"retirements waiting for room in a CQ"`
	CQEDMAStalls            uint64 `stat:"Completion.DMAStalls" unit:"events" desc:"CQE writes waiting for room in the DMA queue"`
	Interrupts              uint64 `stat:"Completion.Interrupts" unit:"interrupts" desc:"MSI-X interrupts sent"`
	FirmwareCommands        uint64 `stat:"Firmware.Commands" unit:"commands" desc:"firmware commands that reached the NIC"`
	FirmwareBacklog         uint64 `stat:"Firmware.Backlog" unit:"commands" desc:"commands held by the provider: NIC command queue full"`
	FirmwareIRQs            uint64 `stat:"Firmware.Interrupts" unit:"interrupts" desc:"firmware completion MSI-X interrupts"`
	RemoteReads             uint64 `stat:"DataPath.RemoteReads" unit:"requests" desc:"RDMA Reads issued"`
	RemoteRequests          uint64 `stat:"DataPath.RemoteRequests" unit:"requests" desc:"requests that arrived at the responder"`
	RemotePacketsDropped    uint64 `stat:"DataPath.PacketsDropped" unit:"packets" desc:"later packets of a message the responder had refused and answered already"`
	RNRNaks                 uint64 `stat:"DataPath.RNRNaks" unit:"NAKs" desc:"Sends answered with an RNR NAK: no receive posted"`
	RNRDropped              uint64 `stat:"DataPath.RNRDropped" unit:"requests" desc:"requests dropped while their QP waited for a Send it answered with an RNR NAK"`
	RNRRetries              uint64 `stat:"DataPath.RNRRetries" unit:"retries" desc:"RNR timers run out: a QP's requests sent again"`
	RemoteInvalidations     uint64 `stat:"DataPath.RemoteInvalidations" unit:"tokens" desc:"tokens invalidated by SendAndInvalidate"`
	RemoteInvalidateRefused uint64 `stat:"DataPath.RemoteInvalidateRefused" unit:"requests" desc:"SendAndInvalidate with a token the receiver cannot invalidate"`
	RemoteTranslateStalls   uint64 `stat:"DataPath.TranslateStalls" unit:"events" desc:"responder waits for a translator slot"`
	DataDMABytes            uint64 `stat:"DataPath.DMABytes" unit:"bytes" desc:"payload bytes moved by data DMAs"`
	TxBufferWaits           uint64 `stat:"DataPath.TxBufferWaits" unit:"messages" desc:"Write and Send messages whose packets waited for room in the transmit buffer"`
	RxBufferWaits           uint64 `stat:"DataPath.RxBufferWaits" unit:"waits" desc:"times the peer's Read response packets waited for room in the requester's receive buffer"`
	CQOverruns              uint64 `stat:"DataPath.CQOverruns" unit:"CQEs" desc:"receive CQEs dropped: CQ full"`
	ResponderFull           uint64 `stat:"Responder.FullStalls" unit:"events" desc:"requests the peer held: the responder's buffer was full"`

	RemoteRefused [mtt.ReasonCount]uint64 // responder refusals by mtt reason
	PCIeBytes     [purposes]uint64
}

// stage returns the statistics of the stage kind named kind.
func (s *Stats) stage(kind string) *StageStats {
	for _, st := range s.Stages {
		if st.Name == kind {
			return st
		}
	}
	st := &StageStats{Name: kind}
	s.Stages = append(s.Stages, st)
	return st
}

func (s *Stats) addBytes(k opKind, p purpose, n uint64) {
	s.PCIeBytes[p] += n
	s.Ops[k].PCIeBytes[p] += n
}

func (s *Stats) recordPost(k opKind, now sim.Tick) {
	o := &s.Ops[k]
	if o.Posted == 0 {
		o.FirstPost = now
	}
	o.Posted++
}

// recordExec runs when the completion engine retires w.
func (s *Stats) recordExec(w *wr, now sim.Tick) {
	o := &s.Ops[w.kind]
	o.Completed++
	o.LastRetire = now
	if w.status != StatusSuccess {
		o.Errors++
	}
	if w.tDoorbell >= w.tPost && w.tDoorbell != 0 {
		record(&o.ToDoorbellPS, uint64(w.tDoorbell-w.tPost))
	}
	if w.tFetched >= w.tPost && w.tFetched != 0 {
		record(&o.ToFetchedPS, uint64(w.tFetched-w.tPost))
	}
	if w.tExec >= w.tPost && w.tExec != 0 {
		record(&o.ToExecutedPS, uint64(w.tExec-w.tPost))
	}
}

// record adds v to h. It is kept out of line: a profile-guided build
// would otherwise put a copy of Histogram.Record in each caller, code a
// retirement runs four times, where one copy stays in the instruction
// cache.
//
//go:noinline
func record(h *sim.Histogram, v uint64) { h.Record(v) }

func (s *Stats) recordCQE(e *cqEntry, now sim.Tick) {
	o := &s.Ops[e.kind]
	o.CQEs++
	record(&o.ToCQEPS, uint64(now-e.tPost))
}

// Throughput is an operation's retirement rate in operations per second,
// from its first post to its last retirement.
func Throughput(o *OpStats) float64 {
	if o.Completed == 0 || o.LastRetire <= o.FirstPost {
		return 0
	}
	return float64(o.Completed) / (o.LastRetire - o.FirstPost).Seconds()
}

// Register names every statistic under the adapter's name ("NIC.FastRegister.
// ToCQEPS", "NIC.PCIe.Bytes.PageList", ...) and the TPT's under name+".TPT".
func (a *Adapter) Register(r *sim.Registry) error {
	p := a.name + "."
	s := &a.Stats
	for k := range opKinds {
		if err := registerOp(r, p+opKindNames[k]+".", &s.Ops[k]); err != nil {
			return err
		}
	}
	for q := range purposes {
		if err := r.Counter(p+"PCIe.Bytes."+purposeNames[q], "bytes", "PCIe bytes moved for "+purposeNames[q]+" (payload)", &s.PCIeBytes[q]); err != nil {
			return err
		}
	}
	r.OnRead(a.settle)
	for _, st := range s.Stages {
		if err := registerStage(r, p+"Stage."+st.Name+".", st, a.eng); err != nil {
			return err
		}
	}
	if err := r.Struct(p, s); err != nil {
		return err
	}
	return a.tpt.Stats.Register(r, a.name+".TPT")
}

// registerOp registers one operation type's statistics under p.
func registerOp(r *sim.Registry, p string, o *OpStats) error {
	if err := r.Struct(p, o); err != nil {
		return err
	}
	if err := r.Formula(p+"Throughput", "requests/s", "retired requests per second from first post to last retirement",
		func() float64 { return Throughput(o) }); err != nil {
		return err
	}
	for q := range purposes {
		if err := r.Counter(p+"PCIeBytes."+purposeNames[q], "bytes", "PCIe bytes this operation caused for "+purposeNames[q], &o.PCIeBytes[q]); err != nil {
			return err
		}
		if err := r.Formula(p+"PCIeBytesPerOp."+purposeNames[q], "bytes/request", "PCIe bytes per posted request for "+purposeNames[q],
			func() float64 { return float64(o.PCIeBytes[q]) / float64(o.Posted) }); err != nil {
			return err
		}
	}
	return nil
}

// registerStage registers one stage kind's statistics under p.
func registerStage(r *sim.Registry, p string, st *StageStats, eng *sim.Engine) error {
	if err := r.Struct(p, st); err != nil {
		return err
	}
	return r.Formula(p+"Occupancy", "items", "mean items in the stage over the run",
		func() float64 { return float64(st.ResidencyPS) / float64(eng.Now()) })
}
