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
	Posted       uint64
	Completed    uint64 // retired by the completion engine (with or without CQE)
	CQEs         uint64 // CQEs made visible
	Errors       uint64 // retired with a status other than success
	ToDoorbellPS sim.Histogram
	ToFetchedPS  sim.Histogram
	ToExecutedPS sim.Histogram
	ToCQEPS      sim.Histogram
	FirstPost    sim.Tick
	LastRetire   sim.Tick
	PCIeBytes    [purposes]uint64 // PCIe bytes this operation caused, by purpose
}

// StageStats are one stage kind's statistics, summed over engines.
type StageStats struct {
	Name         string // the stage kind: NIC.Stage.<Name>
	Items        uint64 // items that left the stage
	ResidencyPS  uint64 // sum over items of time in the stage (occupancy = this / elapsed)
	OutStalls    uint64 // times a finished item found the next queue full
	StallPS      uint64 // time finished items waited for the next queue
	AcceptStalls uint64 // cycles an item could not start for a busy resource (DMA, TPT, hazard, fetch limit)
}

// Stats are the adapter's statistics: plain counters and histograms updated
// by field access, registered once by Register.
type Stats struct {
	Ops    [opKinds]OpStats
	Stages []*StageStats // in pipeline order

	Doorbells        uint64 // doorbell MMIO writes that reached the NIC
	MMIOWQEs         uint64 // WQE-by-MMIO writes that reached the NIC
	DoorbellOverflow uint64 // doorbell records beyond the doorbell FIFO
	HostMMIOBacklog  uint64 // MMIO writes the CPU had to queue (MMIO queue full)
	WQEFetches       uint64 // WQE DMA reads
	WQEsFetched      uint64 // WQEs read by DMA
	PageListFetches  uint64
	Flushed          uint64 // requests cancelled by the scheduler's flush path
	ErrorCompletions uint64 // requests that failed in the NIC (QP to error)
	CQEs             uint64 // CQE writes issued
	Silent           uint64 // requests retired without CQE (successful SILENT_SUCCESS)
	Interrupts       uint64 // MSI-X sent
	InitMPTWrites    uint64 // MPT writes of NdkInitializeFastRegisterMr
	FirmwareCommands uint64 // firmware commands that reached the NIC
	FirmwareBacklog  uint64 // commands the provider held because the NIC's command queue was full
	FirmwareIRQs     uint64 // firmware completion interrupts

	RemoteReads             uint64                  // RDMA Reads issued
	RemoteRequests          uint64                  // requests that arrived at the responder
	RemoteRefused           [mtt.ReasonCount]uint64 // responder refusals by mtt reason
	RemoteInvalidateRefused uint64                  // SendAndInvalidate with a token the receiver cannot invalidate
	RemoteInvalidations     uint64                  // tokens invalidated by SendAndInvalidate
	RemoteTranslateStalls   uint64                  // responder waits for a translator slot
	DataDMABytes            uint64                  // payload bytes moved by data DMAs
	CQOverruns              uint64                  // receive CQEs dropped: CQ full
	SchedulerStalls         uint64
	FetchStalls             uint64 // fetched WQEs waiting for room in an engine queue
	FetchDMAStalls          uint64
	PageListDMAStalls       uint64
	MPTReads                uint64 // validate's key-table reads through the MPT cache
	MPTReadStalls           uint64 // validate found every TPT request slot busy
	TPTWriteStalls          uint64
	HazardStalls            uint64
	ReadFenceStalls         uint64
	CQFullStalls            uint64
	CQEDMAStalls            uint64
	PCIeBytes               [purposes]uint64
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
		o.ToDoorbellPS.Record(uint64(w.tDoorbell - w.tPost))
	}
	if w.tFetched >= w.tPost && w.tFetched != 0 {
		o.ToFetchedPS.Record(uint64(w.tFetched - w.tPost))
	}
	if w.tExec >= w.tPost && w.tExec != 0 {
		o.ToExecutedPS.Record(uint64(w.tExec - w.tPost))
	}
}

func (s *Stats) recordCQE(e *cqEntry, now sim.Tick) {
	o := &s.Ops[e.kind]
	o.CQEs++
	o.ToCQEPS.Record(uint64(now - e.tPost))
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
	for _, st := range s.Stages {
		if err := registerStage(r, p+"Stage."+st.Name+".", st, a.eng); err != nil {
			return err
		}
	}
	if err := r.Counters(p, s.blockCounters()...); err != nil {
		return err
	}
	return a.tpt.Stats.Register(r, a.name+".TPT")
}

// registerOp registers one operation type's statistics under p.
func registerOp(r *sim.Registry, p string, o *OpStats) error {
	if err := r.Counters(p,
		sim.Ctr("Posted", "requests", "requests posted (inline success)", &o.Posted),
		sim.Ctr("Completed", "requests", "requests retired by the completion engine", &o.Completed),
		sim.Ctr("CQEs", "CQEs", "CQEs made visible in host memory", &o.CQEs),
		sim.Ctr("Errors", "requests", "requests retired with an error or STATUS_CANCELLED", &o.Errors),
	); err != nil {
		return err
	}
	for _, h := range []struct {
		name, desc string
		h          *sim.Histogram
	}{
		{"Latency.PostToDoorbellPS", "post to doorbell processed by the NIC", &o.ToDoorbellPS},
		{"Latency.PostToFetchedPS", "post to WQE on the NIC and handed to the engine", &o.ToFetchedPS},
		{"Latency.PostToExecutedPS", "post to commit (MPT update) or flush", &o.ToExecutedPS},
		{"Latency.PostToCQEPS", "post to CQE visible in host memory", &o.ToCQEPS},
	} {
		if err := r.Histogram(p+h.name, "ps", h.desc, h.h); err != nil {
			return err
		}
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
	if err := r.Counters(p,
		sim.Ctr("Items", "items", "items that left the stage", &st.Items),
		sim.Ctr("ResidencyPS", "ps", "sum of item residency (occupancy x time)", &st.ResidencyPS),
		sim.Ctr("OutStalls", "events", "finished items that found the next queue full", &st.OutStalls),
		sim.Ctr("StallPS", "ps", "time finished items waited for the next queue", &st.StallPS),
		sim.Ctr("AcceptStalls", "cycles", "cycles an item could not start for a busy resource", &st.AcceptStalls),
	); err != nil {
		return err
	}
	return r.Formula(p+"Occupancy", "items", "mean items in the stage over the run",
		func() float64 { return float64(st.ResidencyPS) / float64(eng.Now()) })
}

// blockCounters are the counters of the blocks, by block.
func (s *Stats) blockCounters() []sim.CounterDef {
	return []sim.CounterDef{
		sim.Ctr("Doorbell.Doorbells", "writes", "doorbell MMIO writes that reached the NIC", &s.Doorbells),
		sim.Ctr("Doorbell.MMIOWQEs", "WQEs", "WQEs written by WQE-by-MMIO that reached the NIC", &s.MMIOWQEs),
		sim.Ctr("Doorbell.Overflow", "records", "doorbell records beyond the doorbell FIFO", &s.DoorbellOverflow),
		sim.Ctr("Host.MMIOBacklog", "writes", "MMIO writes the CPU had to queue", &s.HostMMIOBacklog),
		sim.Ctr("WQEFetch.Reads", "reads", "WQE DMA reads", &s.WQEFetches),
		sim.Ctr("WQEFetch.WQEs", "WQEs", "WQEs read by DMA", &s.WQEsFetched),
		sim.Ctr("WQEFetch.EngineStalls", "cycles", "fetched WQEs waiting for room in an engine queue", &s.FetchStalls),
		sim.Ctr("WQEFetch.DMAStalls", "cycles", "fetches waiting for room in the DMA queue", &s.FetchDMAStalls),
		sim.Ctr("Scheduler.Stalls", "cycles", "decisions waiting for room in the fetch queue", &s.SchedulerStalls),
		sim.Ctr("Scheduler.Flushed", "requests", "requests cancelled by the flush path", &s.Flushed),
		sim.Ctr("PageList.Fetches", "reads", "page-list DMA reads", &s.PageListFetches),
		sim.Ctr("PageList.DMAStalls", "cycles", "page-list reads waiting for room in the DMA queue", &s.PageListDMAStalls),
		sim.Ctr("Validate.MPTReads", "reads", "key-table entries read through the MPT cache by validate", &s.MPTReads),
		sim.Ctr("Validate.MPTReadStalls", "stalls", "validate waiting for a free TPT request slot", &s.MPTReadStalls),
		sim.Ctr("TPT.WriteStalls", "cycles", "MTT/MPT writes waiting for a TPT write slot", &s.TPTWriteStalls),
		sim.Ctr("Validate.HazardStalls", "cycles", "requests waiting for an earlier request on the same MR", &s.HazardStalls),
		sim.Ctr("Validate.ReadFenceStalls", "cycles", "READ_FENCE requests waiting for earlier reads", &s.ReadFenceStalls),
		sim.Ctr("Validate.ErrorCompletions", "requests", "requests that failed in the NIC (QP to error)", &s.ErrorCompletions),
		sim.Ctr("Completion.CQEs", "CQEs", "CQE writes issued", &s.CQEs),
		sim.Ctr("Completion.Silent", "requests", "successful SILENT_SUCCESS requests retired without CQE", &s.Silent),
		sim.Ctr("Completion.CQFullStalls", "events", "retirements waiting for room in a CQ", &s.CQFullStalls),
		sim.Ctr("Completion.DMAStalls", "events", "CQE writes waiting for room in the DMA queue", &s.CQEDMAStalls),
		sim.Ctr("InitializeFastRegisterMr.MPTWrites", "writes", "MPT writes of NdkInitializeFastRegisterMr", &s.InitMPTWrites),
		sim.Ctr("Completion.Interrupts", "interrupts", "MSI-X interrupts sent", &s.Interrupts),
		sim.Ctr("Firmware.Commands", "commands", "firmware commands that reached the NIC", &s.FirmwareCommands),
		sim.Ctr("Firmware.Backlog", "commands", "commands held by the provider: NIC command queue full", &s.FirmwareBacklog),
		sim.Ctr("DataPath.RemoteReads", "requests", "RDMA Reads issued", &s.RemoteReads),
		sim.Ctr("DataPath.RemoteRequests", "requests", "requests that arrived at the responder", &s.RemoteRequests),
		sim.Ctr("DataPath.RemoteInvalidations", "tokens", "tokens invalidated by SendAndInvalidate", &s.RemoteInvalidations),
		sim.Ctr("DataPath.RemoteInvalidateRefused", "requests", "SendAndInvalidate with a token the receiver cannot invalidate", &s.RemoteInvalidateRefused),
		sim.Ctr("DataPath.TranslateStalls", "events", "responder waits for a translator slot", &s.RemoteTranslateStalls),
		sim.Ctr("DataPath.DMABytes", "bytes", "payload bytes moved by data DMAs", &s.DataDMABytes),
		sim.Ctr("DataPath.CQOverruns", "CQEs", "receive CQEs dropped: CQ full", &s.CQOverruns),
		sim.Ctr("Firmware.Interrupts", "interrupts", "firmware completion MSI-X interrupts", &s.FirmwareIRQs),
	}
}
