package pcie

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// DMA is the NIC's DMA engine on one link: a read path and a write path
// (engine.go), each with its own bounded request queue and channels working
// in NIC clock cycles, and the read tags. Each MRd holds a tag until its
// last completion byte arrives.
type DMA struct {
	l        *Link
	eng      *sim.Engine // l's, and
	stats    *Stats      // l's statistics, without going through l
	reqs     []dmaReq
	free     []uint32
	rd, wr   path
	msixQ    int // MSI-X writes pending
	refused  bool
	wakers   []sim.Waker
	tags     []tagEntry
	freeTags []uint32
	tagsUsed int
	tagStall bool
	stallAt  sim.Tick
	tagMeter *sim.Meter
	visEv    visibleEvent
}

type dmaReq struct {
	write bool
	msix  bool
	addr  uint64
	bytes uint64
	off   uint64 // bytes cut into TLPs the link has taken
	taken uint64 // TLPs the link has taken
	recv  uint64 // read: completion bytes received
	done  sim.Handler
	arg   uint64
	// sent, when set, runs with sentArg as the transmitter takes the
	// request's last TLP (WritePosted).
	sent    sim.Handler
	sentArg uint64
	called  sim.Tick
	cutAt   sim.Tick // when its first TLP is ready
	seq     uint64
}

// set makes r a new request, every field set but cutAt and seq, which it
// gets when it starts on a channel (startNext), before anything reads
// them: field by field, which is cheaper than assigning a whole value that
// holds a pointer.
func (r *dmaReq) set(write, msix bool, addr, bytes uint64, done sim.Handler, arg uint64, called sim.Tick) {
	r.write, r.msix, r.addr, r.bytes = write, msix, addr, bytes
	r.off, r.taken, r.recv = 0, 0, 0
	r.done, r.arg, r.called = done, arg, called
	r.sent = nil
}

type tagEntry struct {
	req  uint32
	next uint64 // address the next completion must start at
	left uint64 // completion bytes still to come
}

// visibleEvent runs when a DMA write or an MSI-X is visible in the host.
type visibleEvent struct{ d *DMA }

func newDMA(l *Link, clock sim.ClockDomain) *DMA {
	d := &DMA{l: l, eng: l.eng, stats: &l.stats}
	d.rd = newPath(d, false, clock)
	d.wr = newPath(d, true, clock)
	d.rd.freeEv, d.wr.freeEv = channelFree{&d.rd}, channelFree{&d.wr}
	d.visEv = visibleEvent{d}
	return d
}

// CanAccept reports whether both request queues have room, so that a Read
// or a Write that follows it cannot be refused as full. When it returns
// false, wakers added with AddWaker are woken once room frees.
func (d *DMA) CanAccept() bool { return d.room(&d.rd) && d.room(&d.wr) }

// CanAcceptRead reports whether the read queue has room (see CanAccept).
func (d *DMA) CanAcceptRead() bool { return d.room(&d.rd) }

// CanAcceptWrite reports whether the write queue has room (see CanAccept).
func (d *DMA) CanAcceptWrite() bool { return d.room(&d.wr) }

func (d *DMA) room(p *path) bool {
	if p.queued < p.depth {
		return true
	}
	d.refused = true
	return false
}

// AddWaker registers w, for good, to be woken each time room frees after
// CanAccept (or a refused request) found a queue full. Adding a waker that
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
	return d.submit(&d.rd, addr, bytes, done, arg, nil, 0)
}

// Write queues a DMA write of bytes at addr. Writes are posted; done runs
// when the data is visible in host memory: the last MWr has arrived at the
// host and the host has made it (and every write before it) visible to a
// polling CPU (HostWriteVisible*, docs/sources.md 1.1). A completion
// written by DMA therefore counts as seen only when a CPU could see it. On
// error nothing is queued.
func (d *DMA) Write(addr, bytes uint64, done sim.Handler, arg uint64) error {
	return d.submit(&d.wr, addr, bytes, done, arg, nil, 0)
}

// WritePosted is Write with one more handler: sent.Handle(now, sentArg)
// runs as the link's transmitter takes the write's last TLP, when the NIC
// has handed all its data to the link and holds no buffer of its own for
// it; done runs when it is visible in host memory, as for Write. sent must
// not be nil.
func (d *DMA) WritePosted(addr, bytes uint64, sent sim.Handler, sentArg uint64, done sim.Handler, arg uint64) error {
	return d.submit(&d.wr, addr, bytes, done, arg, sent, sentArg)
}

func (d *DMA) submit(p *path, addr, bytes uint64, done sim.Handler, arg uint64, sent sim.Handler, sentArg uint64) error {
	// One test for the usual case: 1..TransferBytesMax bytes (0 wraps
	// above the limit), no wrap, room.
	if bytes-1 >= TransferBytesMax || addr+bytes < addr || p.queued >= p.depth {
		return d.refuse(p, addr, bytes)
	}
	now := d.eng.Now()
	i := d.alloc()
	r := &d.reqs[i]
	r.set(p.write, false, addr, bytes, done, arg, now)
	r.sent, r.sentArg = sent, sentArg
	p.queued++
	p.reqs.Push(i) // enqueue, without the call
	p.startNext(now)
	return nil
}

// refuse counts a request submit cannot take and says why.
func (d *DMA) refuse(p *path, addr, bytes uint64) error {
	op := "Read"
	if p.write {
		op = "Write"
	}
	d.l.stats.Refused++
	switch {
	case bytes == 0:
		return fmt.Errorf("pcie: DMA %s of 0 bytes", op)
	case bytes > TransferBytesMax:
		return fmt.Errorf("pcie: DMA %s of %d bytes exceeds the limit of %d", op, bytes, TransferBytesMax)
	case addr+bytes < addr:
		return fmt.Errorf("pcie: DMA %s at %#x of %d bytes wraps the address space", op, addr, bytes)
	}
	d.room(p) // a refusal for want of room wakes the wakers once room frees
	return fmt.Errorf("pcie: DMA %s: %w (%d requests)", op, ErrFull, p.queued)
}

func (d *DMA) alloc() uint32 { return takeSlot(&d.free, &d.reqs) }

// release frees request slot i. Every use of a slot sets all its fields,
// so only the handler is cleared, to hold no reference.
func (d *DMA) release(i uint32) {
	d.reqs[i].done = nil
	d.free = append(d.free, i)
}

// roomFreed wakes the wakers after a refusal once a queue has room again.
func (d *DMA) roomFreed() {
	if !d.refused {
		return
	}
	d.refused = false
	for _, w := range d.wakers {
		w.Wake()
	}
}

// MSIX sends an MSI-X interrupt: a 4 B posted MWr to the host, ordered after
// the DMA writes requested before it. done runs when it has arrived at the
// host and every write before it is visible there.
func (l *Link) MSIX(done sim.Handler, arg uint64) error {
	d := l.dma
	if d.msixQ >= l.spec.MSIXQueueMax {
		return fmt.Errorf("pcie: MSIX: %w (%d pending)", ErrFull, d.msixQ)
	}
	now := l.eng.Now()
	i := d.alloc()
	d.reqs[i].set(true, true, 0xFEE00000, MSIXBytes, done, arg, now)
	d.msixQ++
	d.wr.enqueue(now, i)
	return nil
}

// visibleAt ends write (or MSI-X) request i at the time the host has made
// it visible: now, or in an event then.
func (d *DMA) visibleAt(now, at sim.Tick, i uint32) {
	if at == now {
		d.visEv.Handle(now, uint64(i))
		return
	}
	d.eng.After(at-now, sim.PrioDeliver, d.visEv, uint64(i))
}

// Handle ends write (or MSI-X) request arg, now visible in the host; the
// event's handler itself, not a call to a method of the DMA engine.
func (e visibleEvent) Handle(now sim.Tick, arg uint64) {
	d, i := e.d, uint32(arg)
	r := &d.reqs[i]
	s := d.stats
	if r.msix {
		d.msixQ--
		s.MSIXs++
	} else {
		s.Writes++
		s.WriteBytes += r.bytes
		s.WriteLatencyPS.Record(uint64(now - r.called))
	}
	done, arg := r.done, r.arg
	r.done, d.free = nil, append(d.free, i) // release(i), without indexing again
	if done != nil {
		done.Handle(now, arg)
	}
}

// tagFree reports whether an MRd can have a tag now, counting a stall the
// first time it cannot.
func (d *DMA) tagFree(now sim.Tick) bool {
	if d.tagsUsed < d.l.spec.TagsMax {
		return true
	}
	if !d.tagStall {
		d.tagStall = true
		d.stallAt = now
		d.l.stats.TagStalls++
		d.tagMeter.Waits(now, true)
	}
	return false
}

// takeTag gives MRd t a tag.
func (d *DMA) takeTag(now sim.Tick, t *tlp) {
	tag := takeSlot(&d.freeTags, &d.tags)
	d.tags[tag] = tagEntry{req: t.ref, next: t.addr, left: t.reqBytes}
	t.tag = tag
	d.tagsUsed++
	d.tagMeter.Set(now, uint64(d.tagsUsed))
	if uint64(d.tagsUsed) > d.l.stats.TagsInUseMax {
		d.l.stats.TagsInUseMax = uint64(d.tagsUsed)
	}
}

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
		d.tagMeter.Set(now, uint64(d.tagsUsed))
		if d.tagStall {
			d.tagStall = false
			s.TagStallPS += uint64(now - d.stallAt)
			d.tagMeter.Waits(now, false)
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
