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

// StageStats are one stage's statistics, summed over engines.
type StageStats struct {
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
	Stages [stageKinds]StageStats

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
	ctr := func(name, unit, desc string, v *uint64) error { return r.Counter(p+name, unit, desc, v) }
	for k := range opKinds {
		o := &s.Ops[k]
		n := opKindNames[k] + "."
		for _, c := range []struct {
			name, unit, desc string
			v                *uint64
		}{
			{"Posted", "requests", "requests posted (inline success)", &o.Posted},
			{"Completed", "requests", "requests retired by the completion engine", &o.Completed},
			{"CQEs", "CQEs", "CQEs made visible in host memory", &o.CQEs},
			{"Errors", "requests", "requests retired with an error or STATUS_CANCELLED", &o.Errors},
		} {
			if err := ctr(n+c.name, c.unit, c.desc, c.v); err != nil {
				return err
			}
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
			if err := r.Histogram(p+n+h.name, "ps", h.desc, h.h); err != nil {
				return err
			}
		}
		if err := r.Formula(p+n+"Throughput", "requests/s", "retired requests per second from first post to last retirement",
			func() float64 { return Throughput(o) }); err != nil {
			return err
		}
		for q := range purposes {
			if err := ctr(n+"PCIeBytes."+purposeNames[q], "bytes", "PCIe bytes this operation caused for "+purposeNames[q], &o.PCIeBytes[q]); err != nil {
				return err
			}
			q := q
			if err := r.Formula(p+n+"PCIeBytesPerOp."+purposeNames[q], "bytes/request", "PCIe bytes per posted request for "+purposeNames[q],
				func() float64 { return float64(o.PCIeBytes[q]) / float64(o.Posted) }); err != nil {
				return err
			}
		}
	}
	for q := range purposes {
		if err := ctr("PCIe.Bytes."+purposeNames[q], "bytes", "PCIe bytes moved for "+purposeNames[q]+" (payload)", &s.PCIeBytes[q]); err != nil {
			return err
		}
	}
	for k := range stageKinds {
		st := &s.Stages[k]
		n := "Stage." + stageNames[k] + "."
		for _, c := range []struct {
			name, unit, desc string
			v                *uint64
		}{
			{"Items", "items", "items that left the stage", &st.Items},
			{"ResidencyPS", "ps", "sum of item residency (occupancy x time)", &st.ResidencyPS},
			{"OutStalls", "events", "finished items that found the next queue full", &st.OutStalls},
			{"StallPS", "ps", "time finished items waited for the next queue", &st.StallPS},
			{"AcceptStalls", "cycles", "cycles an item could not start for a busy resource", &st.AcceptStalls},
		} {
			if err := ctr(n+c.name, c.unit, c.desc, c.v); err != nil {
				return err
			}
		}
		if err := r.Formula(p+n+"Occupancy", "items", "mean items in the stage over the run",
			func() float64 { return float64(st.ResidencyPS) / float64(a.eng.Now()) }); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name, unit, desc string
		v                *uint64
	}{
		{"Doorbell.Doorbells", "writes", "doorbell MMIO writes that reached the NIC", &s.Doorbells},
		{"Doorbell.MMIOWQEs", "WQEs", "WQEs written by WQE-by-MMIO that reached the NIC", &s.MMIOWQEs},
		{"Doorbell.Overflow", "records", "doorbell records beyond the doorbell FIFO", &s.DoorbellOverflow},
		{"Host.MMIOBacklog", "writes", "MMIO writes the CPU had to queue", &s.HostMMIOBacklog},
		{"WQEFetch.Reads", "reads", "WQE DMA reads", &s.WQEFetches},
		{"WQEFetch.WQEs", "WQEs", "WQEs read by DMA", &s.WQEsFetched},
		{"WQEFetch.EngineStalls", "cycles", "fetched WQEs waiting for room in an engine queue", &s.FetchStalls},
		{"WQEFetch.DMAStalls", "cycles", "fetches waiting for room in the DMA queue", &s.FetchDMAStalls},
		{"Scheduler.Stalls", "cycles", "decisions waiting for room in the fetch queue", &s.SchedulerStalls},
		{"Scheduler.Flushed", "requests", "requests cancelled by the flush path", &s.Flushed},
		{"PageList.Fetches", "reads", "page-list DMA reads", &s.PageListFetches},
		{"PageList.DMAStalls", "cycles", "page-list reads waiting for room in the DMA queue", &s.PageListDMAStalls},
		{"Validate.MPTReads", "reads", "key-table entries read through the MPT cache by validate", &s.MPTReads},
		{"Validate.MPTReadStalls", "stalls", "validate waiting for a free TPT request slot", &s.MPTReadStalls},
		{"TPT.WriteStalls", "cycles", "MTT/MPT writes waiting for a TPT write slot", &s.TPTWriteStalls},
		{"Validate.HazardStalls", "cycles", "requests waiting for an earlier request on the same MR", &s.HazardStalls},
		{"Validate.ReadFenceStalls", "cycles", "READ_FENCE requests waiting for earlier reads", &s.ReadFenceStalls},
		{"Validate.ErrorCompletions", "requests", "requests that failed in the NIC (QP to error)", &s.ErrorCompletions},
		{"Completion.CQEs", "CQEs", "CQE writes issued", &s.CQEs},
		{"Completion.Silent", "requests", "successful SILENT_SUCCESS requests retired without CQE", &s.Silent},
		{"Completion.CQFullStalls", "events", "retirements waiting for room in a CQ", &s.CQFullStalls},
		{"Completion.DMAStalls", "events", "CQE writes waiting for room in the DMA queue", &s.CQEDMAStalls},
		{"InitializeFastRegisterMr.MPTWrites", "writes", "MPT writes of NdkInitializeFastRegisterMr", &s.InitMPTWrites},
		{"Completion.Interrupts", "interrupts", "MSI-X interrupts sent", &s.Interrupts},
		{"Firmware.Commands", "commands", "firmware commands that reached the NIC", &s.FirmwareCommands},
		{"Firmware.Backlog", "commands", "commands held by the provider: NIC command queue full", &s.FirmwareBacklog},
		{"DataPath.RemoteReads", "requests", "RDMA Reads issued", &s.RemoteReads},
		{"DataPath.RemoteRequests", "requests", "requests that arrived at the responder", &s.RemoteRequests},
		{"DataPath.RemoteInvalidations", "tokens", "tokens invalidated by SendAndInvalidate", &s.RemoteInvalidations},
		{"DataPath.RemoteInvalidateRefused", "requests", "SendAndInvalidate with a token the receiver cannot invalidate", &s.RemoteInvalidateRefused},
		{"DataPath.TranslateStalls", "events", "responder waits for a translator slot", &s.RemoteTranslateStalls},
		{"DataPath.DMABytes", "bytes", "payload bytes moved by data DMAs", &s.DataDMABytes},
		{"DataPath.CQOverruns", "CQEs", "receive CQEs dropped: CQ full", &s.CQOverruns},
		{"Firmware.Interrupts", "interrupts", "firmware completion MSI-X interrupts", &s.FirmwareIRQs},
	} {
		if err := ctr(c.name, c.unit, c.desc, c.v); err != nil {
			return err
		}
	}
	return a.tpt.Stats.Register(r, a.name+".TPT")
}
