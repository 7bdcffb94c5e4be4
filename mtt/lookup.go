package mtt

// The lookup path: each tick runs each cache's ports over the requests
// ready for them (runPorts); a hit answers after the hit latency, a miss
// takes or joins an MSHR and reads its line from ICM (issueReads), and the
// fill answers every request waiting on the line (Handle). advance moves a
// request from the key table to the MTT lines and finish completes it.

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

type mshr struct {
	line       uint64
	busy       bool
	head, tail int32
}

func (t *Translator) runPorts(ti int, now sim.Tick) bool {
	tb := &t.tabs[ti]
	did, used, stalled := false, 0, false
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
			stalled = true
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
	tb.mshrsM.Waits(now, stalled) // a miss at the head of the queue waits for an MSHR
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
		// The translation is the registration the check passed: its
		// pages are taken now, with the check. Read when the MTT lines
		// arrive, they could be a later registration's, written after an
		// Invalidate of this one while the lines were on their way.
		for i := s.firstEntry; i <= s.lastEntry; i++ {
			r.Pages = append(r.Pages, t.mtt.Page(i))
		}
		r.Offset = s.offset
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
