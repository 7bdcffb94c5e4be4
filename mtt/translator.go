package mtt

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/nicsim/nicsim/sim"
)

// DMA is what the tables and caches need from the bus; *pcie.DMA implements it.
type DMA interface {
	CanAccept() bool                                              // room in the DMA request queue; when false, wakers added with AddWaker are woken when room frees
	AddWaker(w sim.Waker)                                         // register for a wake-up when room frees
	Read(addr, bytes uint64, done sim.Handler, arg uint64) error  // done.Handle(now,arg) when the last completion byte has arrived at the NIC
	Write(addr, bytes uint64, done sim.Handler, arg uint64) error // done when the written data is visible in host memory (posted)
	// WritePosted is Write that also runs sent.Handle(now, sentArg) when
	// the link has taken the write's last TLP: the NIC holds nothing of it
	// after that.
	WritePosted(addr, bytes uint64, sent sim.Handler, sentArg uint64, done sim.Handler, arg uint64) error
}

// ErrBusy is returned by Lookup, WriteMPT and WriteMTT when the unit has no
// free request slot or write slot; callers ask CanAccept / CanWrite first.
var ErrBusy = errors.New("mtt: translator busy")

// Request is one translate request of the data path. The caller owns it and
// must not touch it between Lookup and the done call; the result fields are
// valid when done runs.
type Request struct {
	Token  Token
	PD     uint32 // PD of the QP the access arrives through
	QPN    uint32 // that QP (windows answer only through their QP, §5.5)
	VA     uint64
	Length uint64
	Access Access

	// Results.
	Reason Reason   // OK or why the access was refused
	Pages  []uint64 // host address of every page [VA, VA+Length) touches, appended to Pages[:0]; empty unless OK
	Offset uint64   // byte offset of VA in Pages[0]
	Start  sim.Tick // when Lookup was called
	End    sim.Tick // when done was called
}

const (
	tabMPT = 0
	tabMTT = 1

	evShift = 56
	evHit   = 1 << evShift // arg low bits: slot
	evFill  = 2 << evShift // arg: table<<32 | mshr
	evMask  = 1<<evShift - 1
)

type slot struct {
	req        *Request
	done       sim.Handler
	arg        uint64
	phase      uint8 // tabMPT or tabMTT: the table of the current access
	line       uint64
	lastLine   uint64
	firstEntry uint64
	lastEntry  uint64
	offset     uint64
	accStart   sim.Tick
	next       int32 // next waiter on the same MSHR
	mptOnly    bool  // ReadMPT: done once the key-table entry is on the NIC
}

type table struct {
	name      string
	cache     *Cache
	latency   sim.Tick
	ports     int
	lineBytes uint64
	lineShift uint   // log2(lineBytes): LineBytes is a power of two (Spec.Validate)
	base      uint64 // ICM address of line 0
	ready     ring   // slots waiting for a port
	mshrs     []mshr
	freeMSHR  []uint32
	issue     ring // MSHRs waiting for room in the DMA queue
	stats     *TableStats
	portsM    *sim.Meter // lookup ports: each lookup holds one for a cycle
	mshrsM    *sim.Meter // MSHRs in use
}

// usedMSHRs sets the MSHR meter to the MSHRs in use now.
func (tb *table) usedMSHRs(now sim.Tick) {
	tb.mshrsM.Set(now, uint64(len(tb.mshrs)-len(tb.freeMSHR)))
}

// Translator is the timed translation and protection unit: the MPT cache and
// the MTT cache in front of the key table and the MTT in ICM, with lookup
// ports, hit latency, MSHRs and DMA misses, and the registration write path.
// It is a sim.Ticker on the NIC clock and a sim.Handler for its own timers
// and DMA read completions (a DMA write's leaving goes to writeSent).
type Translator struct {
	name  string
	spec  Spec
	eng   *sim.Engine
	clock sim.ClockDomain
	drv   *sim.TickDriver
	dma   DMA
	keys  *KeyTable
	mtt   *MTT
	lay   icmLayout
	tabs  [2]table

	slots      []slot
	freeSlots  []uint32
	wakers     []sim.Waker // woken when a slot frees after a refusal
	refused    bool
	writes     []writeOp
	freeWrites []uint32
	writeQ     ring
	writeEv    writeSent   // the handler of each DMA write's leaving the NIC
	writesM    *sim.Meter  // write slots in use (WriteOpsMax)
	slotFreed  sim.Handler // told when a write slot frees (OnWriteSlotFree)
	// writeUpdate: CacheWritePolicy is WriteUpdate (else WriteInvalidate).
	writeUpdate bool

	// Stats are the unit's statistics; register them with Stats.Register.
	Stats Stats
}

var (
	_ sim.Ticker  = (*Translator)(nil)
	_ sim.Handler = (*Translator)(nil)
)

// New builds the unit named name (e.g. "NIC[0].TPT") on env, reading and
// writing ICM through dma. The random replacement policy draws from
// sim.Stream(env.Seed, name+".MPTCache") and name+".MTTCache".
func New(name string, spec Spec, dma DMA, env *sim.Env) (*Translator, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if dma == nil {
		return nil, fmt.Errorf("mtt: %s: nil DMA", name)
	}
	clock, err := sim.NewClockDomain(name+".Clock", sim.Tick(spec.ClockPeriodPS))
	if err != nil {
		return nil, err
	}
	keys, err := NewKeyTable(spec.KeyTableEntriesMax)
	if err != nil {
		return nil, err
	}
	m, err := NewMTT(spec.MTTEntriesMax, spec.MTTAllocPolicy)
	if err != nil {
		return nil, err
	}
	t := &Translator{name: name, spec: spec, eng: env.Engine, clock: clock, dma: dma, keys: keys, mtt: m,
		lay: icmLayout{mptBase: spec.MPTBaseAddr, mttBase: spec.MTTBaseAddr, mptEntryBytes: uint64(spec.MPTEntryBytes),
			mptLineBytes: uint64(spec.MPTCache.LineBytes), mttLineBytes: uint64(spec.MTTCache.LineBytes)}}
	t.drv = sim.NewTickDriver(name, clock, env.Engine, t)
	t.writeEv = writeSent{t}
	t.writeUpdate = spec.CacheWritePolicy == WriteUpdate
	for i, c := range []struct {
		name       string
		cs         CacheSpec
		entryBytes uint64
		base       uint64
		st         *TableStats
	}{
		{name + ".MPTCache", spec.MPTCache, uint64(spec.MPTEntryBytes), spec.MPTBaseAddr, &t.Stats.MPT},
		{name + ".MTTCache", spec.MTTCache, MTTEntryBytes, spec.MTTBaseAddr, &t.Stats.MTT},
	} {
		if t.tabs[i], err = newTable(c.name, c.cs, c.cs.Geometry(c.entryBytes), c.base, c.st, clock, spec.RequestsMax, env); err != nil {
			return nil, err
		}
	}
	if t.writesM, err = env.Meters.New(name+".Writes", "writes", uint64(spec.WriteOpsMax)); err != nil {
		return nil, err
	}
	t.slots = make([]slot, spec.RequestsMax)
	t.freeSlots = freeList(spec.RequestsMax)
	t.writes = make([]writeOp, spec.WriteOpsMax)
	t.freeWrites = freeList(spec.WriteOpsMax)
	t.writeQ = newRing(int(spec.WriteOpsMax))
	// Registered once: the DMA keeps its wakers and wakes them every time
	// room frees after a refusal (as *pcie.DMA does); a spurious wake costs
	// one deduplicated tick.
	dma.AddWaker(t.drv)
	return t, nil
}

// newTable builds the MPT or MTT cache named name, of geometry g, over the
// table at base: its lookup ports and MSHRs are metered, and it holds up to
// requestsMax requests ready to answer.
func newTable(name string, cs CacheSpec, g Geometry, base uint64, st *TableStats, clock sim.ClockDomain, requestsMax uint32, env *sim.Env) (table, error) {
	cache, err := NewCache(g.Sets, g.Ways, cs.Policy, env.Stream(name))
	if err != nil {
		return table{}, err
	}
	tb := table{name: name, cache: cache, latency: clock.CyclesToTicks(sim.Cycles(cs.LatencyCycles)),
		ports: int(cs.PortsPerCycle), lineBytes: g.LineBytes, lineShift: uint(bits.TrailingZeros64(g.LineBytes)), base: base,
		ready: newRing(int(requestsMax)), mshrs: make([]mshr, cs.MSHRsMax),
		freeMSHR: freeList(cs.MSHRsMax), issue: newRing(int(cs.MSHRsMax)), stats: st}
	if tb.portsM, err = env.Meters.New(name+".Ports", "lookups/cycle", uint64(cs.PortsPerCycle)); err != nil {
		return table{}, err
	}
	if tb.mshrsM, err = env.Meters.New(name+".MSHRs", "MSHRs", uint64(cs.MSHRsMax)); err != nil {
		return table{}, err
	}
	tb.mshrsM.TrackWaits()
	return tb, nil
}

// freeList is a stack of the indices 0..n-1 that pops 0 first.
func freeList(n uint32) []uint32 {
	l := make([]uint32, n)
	for i := range l {
		l[i] = n - 1 - uint32(i)
	}
	return l
}

// Name is the unit's hierarchical name.
func (t *Translator) Name() string { return t.name }

// Spec is the configuration the unit was built with.
func (t *Translator) Spec() Spec { return t.spec }

// Clock is the NIC clock the unit runs on.
func (t *Translator) Clock() sim.ClockDomain { return t.clock }

// Keys is the key table (functional image in ICM).
func (t *Translator) Keys() *KeyTable { return t.keys }

// MTT is the translation table (functional image in ICM) and its allocator.
func (t *Translator) MTT() *MTT { return t.mtt }

// MPTCache and MTTCache expose the caches' tag state (tests, reports).
func (t *Translator) MPTCache() *Cache { return t.tabs[tabMPT].cache }

// MTTCache exposes the MTT cache's tag state.
func (t *Translator) MTTCache() *Cache { return t.tabs[tabMTT].cache }

// MPTLine and MTTLine name the cache line holding key-table entry index and
// MTT entry i.
func (t *Translator) MPTLine(index uint32) uint64 { return t.lay.mptLine(index) }

// MTTLine names the cache line holding MTT entry i.
func (t *Translator) MTTLine(i uint32) uint64 { return t.lay.mttLine(uint64(i)) }

// InFlight is the number of translate requests in the unit.
func (t *Translator) InFlight() int { return len(t.slots) - len(t.freeSlots) }

// CanAccept reports whether Lookup and ReadMPT have a free request slot.
// When they have not, wakers added with AddWaker are woken once one frees.
func (t *Translator) CanAccept() bool {
	if len(t.freeSlots) > 0 {
		return true
	}
	t.refused = true
	return false
}

// AddWaker registers w, for good, to be woken each time a request slot
// frees after CanAccept (or a refused request) found none. Adding a waker
// that is already registered does nothing.
func (t *Translator) AddWaker(w sim.Waker) {
	for _, x := range t.wakers {
		if x == w {
			return
		}
	}
	t.wakers = append(t.wakers, w)
}

// Lookup starts translating r. done.Handle(now, arg) runs once, when r's
// result is known: after the key-table entry is on the NIC and checked
// (refusal), or after every MTT line the range needs has been looked up.
// Zero length and an index beyond the table are refused without reading
// the key table. Lookup never calls done itself.
func (t *Translator) Lookup(r *Request, done sim.Handler, arg uint64) error {
	return t.start(r, done, arg, false)
}

// ReadMPT brings the key-table entry of r.Token's index onto the NIC through
// the MPT cache, for the send side (a FastRegister or Bind validating its
// MR): done runs after the cache's hit latency, or when the ICM read of a
// miss completes. No access check is made and no MTT line is read; r.Reason
// is OK, or ReasonIndexOutOfRange for an index beyond the table. The caller
// reads the entry from Keys() when done runs.
func (t *Translator) ReadMPT(r *Request, done sim.Handler, arg uint64) error {
	return t.start(r, done, arg, true)
}

func (t *Translator) start(r *Request, done sim.Handler, arg uint64, mptOnly bool) error {
	if len(t.freeSlots) == 0 {
		return t.slotsBusy()
	}
	id := t.freeSlots[len(t.freeSlots)-1]
	t.freeSlots = t.freeSlots[:len(t.freeSlots)-1]
	r.Start = t.eng.Now()
	r.Pages = r.Pages[:0]
	r.Offset = 0
	s := &t.slots[id] // zero (finish clears it): only what is not zero is set, field by field
	s.req, s.done, s.arg, s.line, s.next, s.mptOnly = r, done, arg, t.lay.mptLine(r.Token.Index()), -1, mptOnly
	t.tabs[tabMPT].ready.push(id)
	t.drv.Wake()
	return nil
}

// Tick issues pending DMA writes and reads, then runs each cache's ports.
// A step with nothing queued does nothing and is skipped.
func (t *Translator) Tick(now sim.Tick) bool {
	progress := false
	if t.writeQ.len() > 0 {
		progress = t.issueWrites()
	}
	if t.fillsWaiting() {
		progress = t.issueReads() || progress
	}
	// Each table's ports, at a constant index: MPT then MTT.
	if t.tabs[tabMPT].ready.len() > 0 {
		progress = t.runPorts(tabMPT, now) || progress
	}
	if t.tabs[tabMTT].ready.len() > 0 {
		progress = t.runPorts(tabMTT, now) || progress
	}
	if progress && t.drained() {
		// The next tick would find nothing to do unless a request comes
		// first: reserve it rather than queue it.
		t.drv.WakeIdle(now + t.clock.Period)
		return false
	}
	return progress
}

// drained reports whether no write, fill or lookup waits: a tick would do
// nothing.
func (t *Translator) drained() bool {
	return t.writeQ.len() == 0 && !t.fillsWaiting() && t.tabs[0].ready.len() == 0 && t.tabs[1].ready.len() == 0
}

// fillsWaiting reports whether a miss waits for room in the DMA queue.
func (t *Translator) fillsWaiting() bool { return t.tabs[0].issue.len()+t.tabs[1].issue.len() > 0 }

// IdleTick is the tick a drained unit asked for when nothing woke it
// before: it does nothing.
func (t *Translator) IdleTick(sim.Tick) {}

// slotsBusy is start's error, out of line as the write path's
// (writeMPTErr): its formatting would otherwise sit among the common
// path's instructions.
//
//go:noinline
func (t *Translator) slotsBusy() error {
	t.refused = true
	return fmt.Errorf("%w: %s: all %d request slots in use", ErrBusy, t.name, len(t.slots))
}
