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

type mshr struct {
	line       uint64
	busy       bool
	head, tail int32
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

type writeOp struct {
	tab         int
	addr, end   uint64
	chunk       uint64
	outstanding int
	done        sim.Handler
	arg         uint64
}

// Translator is the timed translation and protection unit: the MPT cache and
// the MTT cache in front of the key table and the MTT in ICM, with lookup
// ports, hit latency, MSHRs and DMA misses, and the registration write path.
// It is a sim.Ticker on the NIC clock and a sim.Handler for its own timers
// and DMA read completions (DMA writes complete through writeDone).
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
	writeEv    writeDone  // the handler of each DMA write's completion
	writesM    *sim.Meter // write slots in use (WriteOpsMax)
	// writeUpdate: CacheWritePolicy is WriteUpdate (else WriteInvalidate).
	writeUpdate bool

	// Stats are the unit's statistics; register them with Stats.Register.
	Stats Stats
}

var (
	_ sim.Ticker  = (*Translator)(nil)
	_ sim.Handler = (*Translator)(nil)
)

// writeDone is the completion of one DMA write of write op arg: a handler
// of its own, which need not dispatch on the event's kind as
// Translator.Handle does.
type writeDone struct{ t *Translator }

func (e writeDone) Handle(now sim.Tick, arg uint64) {
	t, id := e.t, uint32(arg)
	w := &t.writes[id]
	w.outstanding--
	if w.addr == w.end && w.outstanding == 0 {
		done, darg := w.done, w.arg
		w.done = nil // write sets every other field; this holds no reference
		t.freeWrites = append(t.freeWrites, id)
		t.writesM.Set(now, uint64(len(t.writes)-len(t.freeWrites)))
		t.Stats.WritesDone++
		if done != nil {
			done.Handle(now, darg)
		}
	}
}

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
	t.writeEv = writeDone{t}
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

func (t *Translator) runPorts(ti int, now sim.Tick) bool {
	tb := &t.tabs[ti]
	did, used := false, 0
	for p := 0; p < tb.ports && tb.ready.len() > 0; p++ {
		used++
		id := tb.ready.pop()
		s := &t.slots[id]
		if ti == tabMPT {
			r := s.req
			if r.Length == 0 && !s.mptOnly {
				t.finish(id, now, ReasonZeroLength)
				did = true
				continue
			}
			if r.Token.Index() >= t.keys.Len() {
				t.finish(id, now, ReasonIndexOutOfRange)
				did = true
				continue
			}
		}
		if tb.cache.Lookup(s.line) {
			tb.stats.Lookups++
			tb.stats.Hits++
			s.accStart = now
			t.eng.After(tb.latency, sim.PrioDefault, t, evHit|uint64(id))
			did = true
			continue
		}
		if m := tb.findMSHR(s.line); m >= 0 {
			tb.stats.Lookups++
			tb.stats.MergedMisses++
			s.accStart = now
			tb.addWaiter(t, m, id)
			did = true
			continue
		}
		if len(tb.freeMSHR) == 0 {
			tb.ready.pushFront(id)
			tb.stats.MSHRStalls++
			used--
			break
		}
		m := tb.freeMSHR[len(tb.freeMSHR)-1]
		tb.freeMSHR = tb.freeMSHR[:len(tb.freeMSHR)-1]
		tb.mshrs[m] = mshr{line: s.line, busy: true, head: -1, tail: -1}
		tb.usedMSHRs(now)
		tb.stats.Lookups++
		tb.stats.Misses++
		s.accStart = now
		tb.addWaiter(t, int(m), id)
		tb.issue.push(m)
		did = true
	}
	if used > 0 {
		tb.portsM.BusyN(now, now+t.clock.Period, uint64(used))
	}
	if did && t.fillsWaiting() {
		t.issueReads()
	}
	return did
}

func (tb *table) findMSHR(line uint64) int {
	for i := range tb.mshrs {
		if tb.mshrs[i].busy && tb.mshrs[i].line == line {
			return i
		}
	}
	return -1
}

func (tb *table) addWaiter(t *Translator, m int, id uint32) {
	ms := &tb.mshrs[m]
	t.slots[id].next = -1
	if ms.tail < 0 {
		ms.head = int32(id)
	} else {
		t.slots[ms.tail].next = int32(id)
	}
	ms.tail = int32(id)
}

// blocked counts a cycle spent waiting for room in the DMA queue; the DMA
// wakes the unit (AddWaker in New) when room frees.
func (t *Translator) blocked() { t.Stats.DMAStalls++ }

func (t *Translator) issueReads() bool {
	did := false
	for ti := range t.tabs {
		tb := &t.tabs[ti]
		for tb.issue.len() > 0 {
			if !t.dma.CanAccept() {
				t.blocked()
				return did
			}
			m := tb.issue.pop()
			addr := tb.base + tb.mshrs[m].line*tb.lineBytes
			if err := t.dma.Read(addr, tb.lineBytes, t, evFill|uint64(ti)<<32|uint64(m)); err != nil {
				panic(fmt.Sprintf("mtt: %s: DMA read refused after CanAccept: %v", t.name, err))
			}
			tb.stats.ICMReadBytes += tb.lineBytes
			did = true
		}
	}
	return did
}

func (t *Translator) issueWrites() bool {
	did := false
	for t.writeQ.len() > 0 {
		if !t.dma.CanAccept() {
			t.blocked()
			return did
		}
		id := t.writeQ.front()
		w := &t.writes[id]
		n := min(w.chunk-w.addr%w.chunk, w.end-w.addr)
		if err := t.dma.Write(w.addr, n, t.writeEv, uint64(id)); err != nil {
			panic(fmt.Sprintf("mtt: %s: DMA write refused after CanAccept: %v", t.name, err))
		}
		t.tabs[w.tab&1].stats.ICMWriteBytes += n // tabMPT or tabMTT: the mask spares a bounds check
		w.addr += n
		w.outstanding++
		if w.addr == w.end {
			t.writeQ.pop()
		}
		did = true
	}
	return did
}

// Handle receives hit timers, DMA read completions (fills) and DMA write
// completions.
func (t *Translator) Handle(now sim.Tick, arg uint64) {
	switch arg &^ evMask {
	case evHit:
		id := uint32(arg & evMask)
		s := &t.slots[id]
		t.tabs[s.phase&1].stats.LatencyPS.Record(uint64(now - s.accStart)) // tabMPT or tabMTT
		t.advance(id, now)
	case evFill:
		tb := &t.tabs[(arg&evMask)>>32]
		m := uint32(arg)
		ms := &tb.mshrs[m]
		if _, ev := tb.cache.Insert(ms.line); ev {
			tb.stats.Evictions++
		}
		head := ms.head
		*ms = mshr{}
		tb.freeMSHR = append(tb.freeMSHR, m)
		tb.usedMSHRs(now)
		for id := head; id >= 0; {
			next := t.slots[id].next
			tb.stats.LatencyPS.Record(uint64(now - t.slots[id].accStart))
			t.advance(uint32(id), now)
			id = next
		}
		if tb.ready.len() > 0 {
			t.drv.Wake() // requests refused for want of an MSHR
		}
	default:
		panic(fmt.Sprintf("mtt: %s: unknown event %#x", t.name, arg))
	}
}

// advance moves a request on after an access answered: from the key table
// to the checks and the MTT, from one MTT line to the next, or to done.
func (t *Translator) advance(id uint32, now sim.Tick) {
	s := &t.slots[id]
	if s.phase == tabMPT {
		if s.mptOnly {
			t.finish(id, now, OK)
			return
		}
		r := s.req
		reason := check(t.keys, checkArgs{r.Token, r.PD, r.QPN, r.VA, r.Length, r.Access})
		if reason != OK {
			t.finish(id, now, reason)
			return
		}
		e := t.keys.entry(r.Token.Index())
		s.firstEntry, s.lastEntry = pageSpan(e, r.VA, r.Length)
		s.offset = (r.VA - e.XlateVA + e.FBO) & (1<<e.PageShift - 1)
		s.phase = tabMTT
		s.line = t.lay.mttLine(s.firstEntry)
		s.lastLine = t.lay.mttLine(s.lastEntry)
		t.tabs[tabMTT].ready.push(id)
		t.drv.Wake()
		return
	}
	if s.line < s.lastLine {
		s.line++
		t.tabs[tabMTT].ready.push(id)
		t.drv.Wake()
		return
	}
	r := s.req
	for i := s.firstEntry; i <= s.lastEntry; i++ {
		r.Pages = append(r.Pages, t.mtt.Page(i))
	}
	r.Offset = s.offset
	t.finish(id, now, OK)
}

func (t *Translator) finish(id uint32, now sim.Tick, reason Reason) {
	s := &t.slots[id]
	r, done, arg := s.req, s.done, s.arg
	*s = slot{} // a free slot is zero (start sets only what is not)
	t.freeSlots = append(t.freeSlots, id)
	if t.refused {
		t.refused = false
		for _, w := range t.wakers {
			w.Wake()
		}
	}
	r.Reason = reason
	r.End = now
	t.Stats.Requests++
	t.Stats.ByReason[reason]++
	if reason != OK {
		t.Stats.Refused++
	}
	t.Stats.RequestPS.Record(uint64(now - r.Start))
	done.Handle(now, arg)
}

// CanWrite reports whether WriteMPT/WriteMTT has a free write slot.
func (t *Translator) CanWrite() bool { return len(t.freeWrites) > 0 }

// WriteMPT writes key-table entry index to ICM by DMA (one MPTEntryBytes
// write) and updates or invalidates the cached copy at once, per
// CacheWritePolicy. done.Handle(now, arg) runs when the write has left the
// NIC; done may be nil. The functional change (KeyTable.SetRegion,
// Invalidate, BindWindow, ...) is the caller's and is visible to lookups
// from the moment it is made; see doc.go.
func (t *Translator) WriteMPT(index uint32, done sim.Handler, arg uint64) error {
	if index >= t.keys.Len() {
		return t.writeMPTErr(index)
	}
	addr := t.lay.mptAddr(index)
	return t.write(tabMPT, addr, addr+uint64(t.spec.MPTEntryBytes), uint64(t.spec.MPTEntryBytes), done, arg)
}

// WriteMTT writes MTT entries [offset, offset+count) to ICM by DMA, rounded
// out to whole 64 B units of 8 entries and cut into MTTWriteBytesMax writes
// (docs/sources.md §6), and updates or invalidates cached copies of those lines.
func (t *Translator) WriteMTT(offset, count uint32, done sim.Handler, arg uint64) error {
	if count == 0 || uint64(offset)+uint64(count) > uint64(t.mtt.Len()) {
		return t.writeMTTErr(offset, count)
	}
	const unit = 64
	lo := t.lay.mttAddr(uint64(offset)) &^ (unit - 1)
	hi := (t.lay.mttAddr(uint64(offset)+uint64(count)) + unit - 1) &^ (unit - 1)
	return t.write(tabMTT, lo, hi, uint64(t.spec.MTTWriteBytesMax), done, arg)
}

func (t *Translator) write(ti int, lo, hi, chunk uint64, done sim.Handler, arg uint64) error {
	if len(t.freeWrites) == 0 {
		return t.writesBusy()
	}
	tb := &t.tabs[ti&1]     // tabMPT or tabMTT: the mask spares a bounds check
	sh := tb.lineShift & 63 // < 64: the mask spares the test of a shift past the width
	last := (hi - 1 - tb.base) >> sh
	for line := (lo - tb.base) >> sh; line <= last; line++ {
		if t.writeUpdate {
			if tb.cache.Contains(line) {
				tb.stats.Updates++
			}
		} else if tb.cache.Invalidate(line) {
			tb.stats.Invalidations++
		}
	}
	id := t.freeWrites[len(t.freeWrites)-1]
	t.freeWrites = t.freeWrites[:len(t.freeWrites)-1]
	w := &t.writes[id] // set field by field: cheaper than a whole value that holds a pointer
	w.tab, w.addr, w.end, w.chunk, w.outstanding = ti, lo, hi, chunk, 0
	w.done, w.arg = done, arg
	t.writesM.Set(t.eng.Now(), uint64(len(t.writes)-len(t.freeWrites)))
	t.writeQ.push(id)
	t.drv.Wake()
	return nil
}

// The errors of start, WriteMPT, WriteMTT and write, out of line: their
// formatting would otherwise sit among the common path's instructions.

//go:noinline
func (t *Translator) slotsBusy() error {
	t.refused = true
	return fmt.Errorf("%w: %s: all %d request slots in use", ErrBusy, t.name, len(t.slots))
}

//go:noinline
func (t *Translator) writeMPTErr(index uint32) error {
	return fmt.Errorf("mtt: %s: WriteMPT of entry %d beyond %d", t.name, index, t.keys.Len())
}

//go:noinline
func (t *Translator) writeMTTErr(offset, count uint32) error {
	return fmt.Errorf("mtt: %s: WriteMTT of [%d, +%d) outside [0, %d)", t.name, offset, count, t.mtt.Len())
}

//go:noinline
func (t *Translator) writesBusy() error {
	return fmt.Errorf("%w: %s: all %d write slots in use", ErrBusy, t.name, len(t.writes))
}
