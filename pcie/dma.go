package pcie

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// DMA is the NIC's DMA engine on one link. Requests enter a bounded queue,
// pass an issue stage that spends ReadIssueCostPS or WriteIssueCostPS on
// each (the engine limit pcie-bench measured, docs/sources.md 1.3), and are
// then cut into TLPs as the upstream transmitter takes them: MWr of at
// most MPS, MRd of at most MRRS, both on naturally aligned boundaries so
// that none crosses a 4 KiB boundary. Each MRd holds a tag until its last
// completion byte arrives.
type DMA struct {
	l        *Link
	reqs     []dmaReq
	free     []uint32
	issueQ   ring[uint32]
	issuing  bool
	queued   int // requests not yet fully taken by the transmitter
	msixQ    int // MSI-X writes pending
	msixWait ring[uint32]
	refused  bool
	wakers   []sim.Waker
	wr       writeLane
	rd       readLane
	tags     []tagEntry
	freeTags []uint32
	tagsUsed int
	tagStall bool
	stallAt  sim.Tick
	issueEv  issueEvent
}

type dmaReq struct {
	write  bool
	msix   bool
	addr   uint64
	bytes  uint64
	off    uint64 // bytes cut into TLPs
	recv   uint64 // read: completion bytes received
	done   sim.Handler
	arg    uint64
	called sim.Tick
	seq    uint64
}

type tagEntry struct {
	req  uint32
	next uint64 // address the next completion must start at
	left uint64 // completion bytes still to come
}

type issueEvent struct{ d *DMA }

func (e issueEvent) Handle(now sim.Tick, arg uint64) { e.d.issued(now) }

func newDMA(l *Link) *DMA {
	d := &DMA{l: l}
	d.wr.d, d.rd.d = d, d
	d.issueEv = issueEvent{d}
	return d
}

// CanAccept reports whether the request queue has room. When it returns
// false, wakers added with AddWaker are woken once room frees.
func (d *DMA) CanAccept() bool {
	if d.queued < d.l.spec.QueueDepth {
		return true
	}
	d.refused = true
	return false
}

// AddWaker registers w, for good, to be woken each time room frees after
// CanAccept (or a refused request) found the queue full. Adding a waker that
// is already registered does nothing, so a client may call AddWaker on every
// refusal without the list growing.
func (d *DMA) AddWaker(w sim.Waker) {
	for _, x := range d.wakers {
		if x == w {
			return
		}
	}
	d.wakers = append(d.wakers, w)
}

// Wakers is the number of distinct registered wakers.
func (d *DMA) Wakers() int { return len(d.wakers) }

// Read queues a DMA read of bytes at addr. done.Handle(now, arg) runs when
// the last completion byte has arrived at the NIC. On error nothing is
// queued.
func (d *DMA) Read(addr, bytes uint64, done sim.Handler, arg uint64) error {
	return d.submit(false, addr, bytes, done, arg)
}

// Write queues a DMA write of bytes at addr. Writes are posted: done runs
// when the last MWr TLP has been transmitted by the NIC.
func (d *DMA) Write(addr, bytes uint64, done sim.Handler, arg uint64) error {
	return d.submit(true, addr, bytes, done, arg)
}

func (d *DMA) submit(write bool, addr, bytes uint64, done sim.Handler, arg uint64) error {
	op := "Read"
	if write {
		op = "Write"
	}
	switch {
	case bytes == 0:
		d.l.stats.Refused++
		return fmt.Errorf("pcie: DMA %s of 0 bytes", op)
	case bytes > TransferBytesMax:
		d.l.stats.Refused++
		return fmt.Errorf("pcie: DMA %s of %d bytes exceeds the limit of %d", op, bytes, TransferBytesMax)
	case addr+bytes < addr:
		d.l.stats.Refused++
		return fmt.Errorf("pcie: DMA %s at %#x of %d bytes wraps the address space", op, addr, bytes)
	case !d.CanAccept():
		d.l.stats.Refused++
		return fmt.Errorf("pcie: DMA %s: %w (%d requests)", op, ErrFull, d.queued)
	}
	i := d.alloc()
	d.reqs[i] = dmaReq{write: write, addr: addr, bytes: bytes, done: done, arg: arg, called: d.l.eng.Now()}
	d.queued++
	d.issueQ.push(i)
	if !d.issuing {
		d.issueNext()
	}
	return nil
}

func (d *DMA) alloc() uint32 { return takeSlot(&d.free, &d.reqs) }

func (d *DMA) release(i uint32) {
	d.reqs[i] = dmaReq{}
	d.free = append(d.free, i)
}

// issueNext starts the issue stage on the oldest queued request.
func (d *DMA) issueNext() {
	for d.issueQ.len() > 0 {
		r := &d.reqs[d.issueQ.peek()]
		cost := d.l.spec.ReadIssueCostPS
		if r.write {
			cost = d.l.spec.WriteIssueCostPS
		}
		if r.msix {
			cost = 0
		}
		if cost > 0 {
			d.issuing = true
			d.l.eng.After(sim.Tick(cost), sim.PrioDefault, d.issueEv, 0)
			return
		}
		d.toLane()
	}
	d.issuing = false
}

func (d *DMA) issued(now sim.Tick) {
	d.toLane()
	d.issueNext()
}

// toLane moves the head of the issue queue to its lane and stamps its age.
func (d *DMA) toLane() {
	i := d.issueQ.pop()
	r := &d.reqs[i]
	r.seq = d.l.up.nextSeq()
	if r.write {
		d.wr.q.push(i)
	} else {
		d.rd.q.push(i)
	}
	d.l.up.kick()
}

// taken is called when a request's last TLP has been taken.
func (d *DMA) taken() {
	d.queued--
	if d.refused && d.queued < d.l.spec.QueueDepth {
		d.refused = false
		for _, w := range d.wakers {
			w.Wake()
		}
	}
}

// MSIX sends an MSI-X interrupt: a 4 B posted MWr to the host, ordered after
// the DMA requests made before it. done runs when it has arrived at the host.
func (l *Link) MSIX(done sim.Handler, arg uint64) error {
	d := l.dma
	if d.msixQ >= l.spec.MSIXQueueMax {
		return fmt.Errorf("pcie: MSIX: %w (%d pending)", ErrFull, d.msixQ)
	}
	i := d.alloc()
	d.reqs[i] = dmaReq{write: true, msix: true, addr: 0xFEE00000, bytes: MSIXBytes, done: done, arg: arg,
		called: l.eng.Now()}
	d.msixQ++
	// Through the issue queue (at no cost), so the interrupt stays behind
	// the DMA writes requested before it.
	d.issueQ.push(i)
	if !d.issuing {
		d.issueNext()
	}
	return nil
}

func (d *DMA) msixArrived(now sim.Tick) {
	i := d.msixWait.pop()
	r := d.reqs[i]
	d.release(i)
	d.msixQ--
	d.l.stats.MSIXs++
	if r.done != nil {
		r.done.Handle(now, r.arg)
	}
}

// writeLane is the posted source of the upstream direction: DMA writes and
// MSI-X in issue order.
type writeLane struct {
	d       *DMA
	q       ring[uint32]
	scratch tlp
}

func (w *writeLane) peek(now sim.Tick) (*tlp, sim.Tick) {
	if w.q.len() == 0 {
		return nil, sim.MaxTick
	}
	d := w.d
	i := w.q.peek()
	r := &d.reqs[i]
	cur := r.addr + r.off
	mps := uint64(d.l.spec.MPSBytes)
	n := min(r.bytes-r.off, mps-cur%mps)
	w.scratch = tlp{kind: KindMWr, class: classP, addr64: d.l.spec.Addr64 && !r.msix, msix: r.msix,
		payload: n, addr: cur, seq: r.seq, ref: i, last: r.off+n == r.bytes}
	return &w.scratch, 0
}

func (w *writeLane) take(now sim.Tick, t *tlp) {
	d := w.d
	r := &d.reqs[t.ref]
	r.off += t.payload
	if t.last {
		w.q.pop()
		if r.msix {
			d.msixWait.push(t.ref)
		} else {
			d.taken()
		}
	}
}

func (w *writeLane) sent(now sim.Tick, t *tlp) {
	if !t.last || t.msix {
		return
	}
	d := w.d
	r := d.reqs[t.ref]
	d.release(t.ref)
	s := &d.l.stats
	s.Writes++
	s.WriteBytes += r.bytes
	s.WriteLatencyPS.Record(uint64(now - r.called))
	if r.done != nil {
		r.done.Handle(now, r.arg)
	}
}

// readLane is the non-posted source of the upstream direction: MRd TLPs,
// each needing a free tag.
type readLane struct {
	d       *DMA
	q       ring[uint32]
	scratch tlp
}

func (rl *readLane) peek(now sim.Tick) (*tlp, sim.Tick) {
	if rl.q.len() == 0 {
		return nil, sim.MaxTick
	}
	d := rl.d
	if d.tagsUsed >= d.l.spec.TagsMax {
		if !d.tagStall {
			d.tagStall = true
			d.stallAt = now
			d.l.stats.TagStalls++
		}
		return nil, sim.MaxTick
	}
	i := rl.q.peek()
	r := &d.reqs[i]
	cur := r.addr + r.off
	mrrs := uint64(d.l.spec.MRRSBytes)
	n := min(r.bytes-r.off, mrrs-cur%mrrs)
	rl.scratch = tlp{kind: KindMRd, class: classNP, addr64: d.l.spec.Addr64, reqBytes: n, reqOff: r.off, addr: cur,
		seq: r.seq, ref: i, last: r.off+n == r.bytes}
	return &rl.scratch, 0
}

func (rl *readLane) take(now sim.Tick, t *tlp) {
	d := rl.d
	tag := takeSlot(&d.freeTags, &d.tags)
	d.tags[tag] = tagEntry{req: t.ref, next: t.addr, left: t.reqBytes}
	t.tag = tag
	d.tagsUsed++
	if uint64(d.tagsUsed) > d.l.stats.TagsInUseMax {
		d.l.stats.TagsInUseMax = uint64(d.tagsUsed)
	}
	r := &d.reqs[t.ref]
	r.off += t.reqBytes
	if t.last {
		rl.q.pop()
		d.taken()
	}
}

func (rl *readLane) sent(now sim.Tick, t *tlp) {}

// completion takes a CplD arriving at the NIC.
func (d *DMA) completion(now sim.Tick, t *tlp) {
	s := &d.l.stats
	te := &d.tags[t.tag]
	if t.addr != te.next {
		s.CplOutOfOrder++
	}
	te.next = t.addr + t.payload
	te.left -= t.payload
	ri := te.req
	r := &d.reqs[ri]
	r.recv += t.payload
	freed := te.left == 0
	if freed {
		d.freeTags = append(d.freeTags, t.tag)
		d.tagsUsed--
		if d.tagStall {
			d.tagStall = false
			s.TagStallPS += uint64(now - d.stallAt)
		}
	}
	if r.recv == r.bytes {
		req := *r
		d.release(ri)
		s.Reads++
		s.ReadBytes += req.bytes
		s.ReadLatencyPS.Record(uint64(now - req.called))
		if req.done != nil {
			req.done.Handle(now, req.arg)
		}
	}
	if freed {
		d.l.up.kick()
	}
}

// Outstanding is the number of requests accepted and not yet completed.
func (d *DMA) Outstanding() int { return len(d.reqs) - len(d.free) - d.msixQ }
