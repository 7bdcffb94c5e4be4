package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// The firmware command path of NdkRegisterMr and NdkDeregisterMr
// (docs/sources.md 4 and 9). A registration is, in order:
//
//  1. host: the provider pins the MDL's pages and builds the page list in a
//     mailbox buffer in host memory, PinPSPerPage per page, on one driver
//     thread (registrations from one host serialise here, as in Mooncake's
//     sequential figure);
//  2. host -> NIC: a FirmwareCommandBytes command by MMIO into the command
//     queue (at most FirmwareQueueDepth commands in the NIC; further ones
//     wait in the provider);
//  3. firmware: one command at a time, RegisterFirmwareNS of fixed work
//     (mkey create), then a DMA read of the page list (8 B per page) from the
//     mailbox, MTT entries written into ICM by DMA through mtt.WriteMTT and
//     the MPT entry through mtt.WriteMPT; the entry becomes valid with a new
//     key at the MPT write (docs/ndk.md 5.3: a fresh registration never revives
//     an old token);
//  4. NIC -> host: an MSI-X when both writes have left the NIC; the
//     provider then calls RequestCompletion (exactly once, rule 1).
//
// Deregistration: command by MMIO, DeregisterFirmwareNS, the entry is made
// invalid and its MPT entry written, MSI-X, then the provider unpins the
// pages (UnpinPSPerPage each) and calls back; the MTT range is freed.

type fwKind uint8

const (
	fwRegister fwKind = iota + 1
	fwDeregister
	fwCreate // NdkCreateMr/NdkCreateMw with the prepared-entry pool empty: ctx is the pending call
)

// Firmware events (arg of firmware.Handle): kind in the top byte, command id below.
const (
	fwEvPinned    = 1 << evShift // host finished pinning: issue the command
	fwEvWork      = 2 << evShift // fixed firmware work done
	fwEvListRead  = 3 << evShift // page-list DMA read done
	fwEvWriteDone = 4 << evShift // an ICM write of the command left the NIC
	fwEvMSIX      = 5 << evShift // completion interrupt reached the host
	fwEvUnpinned  = 6 << evShift // host finished unpinning
	fwEvRetry     = 7 << evShift // retry a refused MSI-X
	fwEvArrived   = 8 << evShift // the command's MMIO write reached the NIC
)

// fwCmd is one firmware command and its progress.
type fwCmd struct {
	kind    fwKind
	mr      *MR
	done    RequestCompletion
	ctx     uint64
	npages  uint32
	pages   []uint64
	va, len uint64
	rights  mtt.Rights
	mailbox uint64
	step    uint8 // fwStep*
	writes  uint8 // ICM writes not yet done
	used    bool
}

const (
	fwStepQueued uint8 = iota
	fwStepWork
	fwStepReadList
	fwStepWriteMTT
	fwStepWriteMPT
	fwStepWaitWrites
)

// firmware is the NIC's command processor plus the provider's host-side
// part of registration.
type firmware struct {
	a        *Adapter
	cmds     []fwCmd
	free     []int         // slots of cmds not used
	queue    sim.FIFO[int] // commands in the NIC's command queue; the first runs when busy
	busy     bool
	backlog  sim.FIFO[int] // commands the provider holds: the NIC's queue is full
	hostFree sim.Tick      // driver thread free from this time (pinning, unpinning)
	inNIC    int           // commands issued to the NIC and not yet completed
	tptWait  bool          // the running command waits for a TPT write slot
	started  sim.Tick      // when the running command started
	meter    *sim.Meter
	driver   *sim.Meter // the provider's driver thread (pinning, unpinning)
	mmio     uint32     // the driver thread's MMIO source (its commands' issue gaps)
}

func (f *firmware) init(a *Adapter) {
	f.a = a
	f.meter = a.meter(a.name+".Firmware", "commands", 1)
	f.driver = a.meter(hostName(a.name)+".Driver", "threads", 1)
	f.mmio = a.mmioSource(hostName(a.name) + ".Driver")
}

// create issues the firmware command of pending call id (a CreateMr or
// CreateMw with the prepared-entry pool empty): FirmwareCommandNS of
// firmware work in the command queue like any other command.
func (f *firmware) create(call int) {
	f.issue(f.add(fwCmd{kind: fwCreate, ctx: uint64(call)}))
}

var _ sim.Handler = (*firmware)(nil)

func (f *firmware) add(c fwCmd) int {
	i := claim(&f.cmds, &f.free)
	c.used, c.pages = true, f.cmds[i].pages[:0]
	f.cmds[i] = c
	return i
}

// hostWork schedules ev|id when the driver thread has done d of work.
func (f *firmware) hostWork(d sim.Tick, ev uint64, id int) {
	now := f.a.eng.Now()
	if f.hostFree < now {
		f.hostFree = now
	}
	f.driver.Busy(f.hostFree, f.hostFree+d)
	f.hostFree += d
	f.a.eng.Schedule(f.hostFree, sim.PrioDefault, f, ev|uint64(id))
}

// Handle advances commands on their events.
func (f *firmware) Handle(now sim.Tick, arg uint64) {
	id := int(arg & evMask)
	switch arg &^ evMask {
	case fwEvPinned:
		f.issue(id)
	case fwEvArrived:
		f.a.cpu.retry()
		f.arrived(id)
	case fwEvWork:
		f.cmds[id].step = fwStepReadList
		f.advance()
	case fwEvListRead:
		f.cmds[id].step = fwStepWriteMTT
		f.advance()
	case fwEvWriteDone:
		c := &f.cmds[id]
		c.writes--
		if c.writes == 0 && c.step == fwStepWaitWrites {
			f.finishNIC(id)
		}
	case fwEvRetry:
		f.finishNIC(id)
	case fwEvMSIX:
		c := &f.cmds[id]
		if c.kind == fwDeregister {
			f.hostWork(sim.Tick(c.npages)*sim.Tick(f.a.spec.UnpinPSPerPage), fwEvUnpinned, id)
			return
		}
		f.complete(id)
	case fwEvUnpinned:
		f.complete(id)
	default:
		panic(fmt.Sprintf("nic: %s: unknown firmware event %#x", f.a.name, arg))
	}
}

// issue sends the command to the NIC's command queue by MMIO, or holds it
// while the queue is full.
func (f *firmware) issue(id int) {
	if f.inNIC >= int(f.a.spec.FirmwareQueueDepth) {
		f.backlog.Push(id)
		f.a.Stats.FirmwareBacklog++
		return
	}
	f.inNIC++
	a := f.a
	a.cpu.issue(a.spec.MMIOBaseAddr-4096, uint64(a.spec.FirmwareCommandBytes), f.mmio, f, fwEvArrived|uint64(id))
}

// arrived runs when a command's MMIO write reached the NIC.
func (f *firmware) arrived(id int) {
	f.queue.Push(id)
	f.a.Stats.FirmwareCommands++
	f.startNext()
}

func (f *firmware) startNext() {
	if f.busy || f.queue.Len() == 0 {
		return
	}
	f.busy = true
	f.started = f.a.eng.Now()
	id := f.queue.Peek()
	c := &f.cmds[id]
	c.step = fwStepWork
	ns := f.a.spec.RegisterFirmwareNS
	switch c.kind {
	case fwDeregister:
		ns = f.a.spec.DeregisterFirmwareNS
	case fwCreate:
		ns = f.a.spec.FirmwareCommandNS
	}
	f.a.eng.After(sim.Tick(ns)*sim.NS, sim.PrioDefault, f, fwEvWork|uint64(id))
}

// Wake retries a command stalled on the DMA queue.
func (f *firmware) Wake() { f.advance() }

// writeSlotFree retries a command stalled on a TPT write slot.
func (f *firmware) writeSlotFree() {
	if f.tptWait && f.a.tpt.CanWrite() {
		f.slotCame()
	}
}

// advance moves the running command through the steps that need a DMA or
// TPT resource; it returns when one is not free (woken later).
func (f *firmware) advance() {
	if !f.busy {
		return
	}
	id := f.queue.Peek()
	c := &f.cmds[id]
	for more := true; more; {
		switch c.step {
		case fwStepReadList:
			more = f.readList(id, c)
		case fwStepWriteMTT:
			more = f.writeMTT(id, c)
		case fwStepWriteMPT:
			more = f.writeMPT(id, c)
		default:
			return
		}
	}
}

// readList starts the DMA read of command id's page list, when it has one;
// it reports whether the command goes on at once to its next step.
func (f *firmware) readList(id int, c *fwCmd) bool {
	a := f.a
	if c.kind == fwCreate { // the mkey is made when the call completes
		c.step = fwStepWaitWrites
		f.finishNIC(id)
		return false
	}
	if c.kind == fwDeregister {
		c.step = fwStepWriteMPT
		return true
	}
	if !a.dma.CanAcceptRead() {
		a.dma.AddWaker(f)
		return false
	}
	if err := a.dma.Read(c.mailbox, uint64(c.npages)*8, f, fwEvListRead|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: firmware page-list read: %v", a.name, err))
	}
	a.Stats.addBytes(kindRegisterMr, purposePageList, uint64(c.npages)*8)
	c.step = fwStepWaitWrites // until fwEvListRead
	return false
}

// writeMTT writes command id's pages into the MTT when the TPT has a write
// slot; it reports whether it did.
func (f *firmware) writeMTT(id int, c *fwCmd) bool {
	a := f.a
	if !f.canWrite() {
		return false
	}
	mr := c.mr
	if err := a.tpt.MTT().Set(mr.mttOff, mtt.PageShift4K, c.pages); err != nil {
		panic(fmt.Sprintf("nic: %s: MTT set: %v", a.name, err))
	}
	if err := a.tpt.WriteMTT(mr.mttOff, c.npages, f, fwEvWriteDone|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMTT: %v", a.name, err))
	}
	a.Stats.addBytes(kindRegisterMr, purposeMTTWrite, mttWriteBytes(mr.mttOff, c.npages))
	c.writes++
	c.step = fwStepWriteMPT
	return true
}

// slotCame goes on with a command that waited for a TPT write slot, out of
// line: writeSlotFree, which every freed slot calls, stays small enough to
// inline.
func (f *firmware) slotCame() {
	f.tptWait = false
	f.a.tptWrites.meterWaits(f.a.eng.Now())
	f.advance()
}

// canWrite reports whether the TPT has a write slot free; when it has
// none, a freed slot wakes the firmware (tptWait).
func (f *firmware) canWrite() bool {
	if f.a.tpt.CanWrite() {
		return true
	}
	f.tptWait = true
	f.a.tptWrites.meterWaits(f.a.eng.Now())
	return false
}

// writeMPT commits command id and writes its MPT entry when the TPT has a
// write slot; the command then waits for its writes. It never goes on at
// once.
func (f *firmware) writeMPT(id int, c *fwCmd) bool {
	a := f.a
	if !f.canWrite() {
		return false
	}
	f.commit(c)
	if err := a.tpt.WriteMPT(c.mr.Index(), f, fwEvWriteDone|uint64(id)); err != nil {
		panic(fmt.Sprintf("nic: %s: WriteMPT: %v", a.name, err))
	}
	k := kindRegisterMr
	if c.kind == fwDeregister {
		k = kindDeregisterMr
	}
	a.Stats.addBytes(k, purposeMPTWrite, uint64(a.spec.TPT.MPTEntryBytes))
	c.writes++
	c.step = fwStepWaitWrites
	return false
}

// commit is the functional change of a command, made when its MPT entry
// is written: a registration gets a new key and its region (valid); a
// deregistration makes the entry invalid.
func (f *firmware) commit(c *fwCmd) {
	a := f.a
	keys := a.tpt.Keys()
	mr := c.mr
	if c.kind == fwDeregister {
		if err := keys.Invalidate(mr.tok); err != nil {
			panic(fmt.Sprintf("nic: %s: deregister: %v", a.name, err))
		}
		return
	}
	tok, err := keys.RotateKey(mr.tok)
	if err != nil {
		panic(fmt.Sprintf("nic: %s: register: %v", a.name, err))
	}
	r := mtt.Region{BaseVA: c.va, Length: c.len, Rights: c.rights, PageShift: mtt.PageShift4K,
		FBO: c.va & (PageSizeBytes - 1), MTTOffset: mr.mttOff, MTTCount: c.npages, XlateVA: c.va}
	if err := keys.SetRegion(tok, r); err != nil {
		panic(fmt.Sprintf("nic: %s: register: %v", a.name, err))
	}
	mr.tok = tok
}

// finishNIC runs when the running command's ICM writes have left the NIC:
// the firmware takes the next command and signals the host by MSI-X.
func (f *firmware) finishNIC(id int) {
	if f.busy && f.queue.Peek() == id {
		f.busy = false
		f.meter.Busy(f.started, f.a.eng.Now())
		f.queue.Drop()
		f.inNIC--
		if f.backlog.Len() > 0 {
			next := f.backlog.Peek()
			f.backlog.Drop()
			f.issue(next)
		}
		f.startNext()
	}
	if err := f.a.mmio.MSIX(f, fwEvMSIX|uint64(id)); err != nil {
		f.a.eng.After(f.a.clock.Period, sim.PrioDefault, f, fwEvRetry|uint64(id))
		return
	}
	f.a.Stats.FirmwareIRQs++
}

// complete ends a command on the host: state, then the one callback.
func (f *firmware) complete(id int) {
	c := f.cmds[id]
	f.cmds[id].used = false
	f.cmds[id].mr, f.cmds[id].done = nil, nil
	f.free = append(f.free, id)
	if c.kind == fwCreate {
		f.a.firmwareDone(f.a.calls.take(int(c.ctx)))
		return
	}
	f.a.firmwareCompleted(&c)
}
