package pcie

import "github.com/nicsim/nicsim/sim"

// host is the root complex and memory as seen from the link. It answers
// each MRd with CplD TLPs: the data of one MRd starts to be ready a drawn
// latency after the MRd arrives (hostMem.readStart: translation, writes to
// the same bytes, the seeded latency distribution), then streams at one
// byte per HostReadLatencyPerByteNS, and each completion goes out once all
// its bytes are ready. The latency applies per MRd (at most MRRS bytes),
// so a long DMA read moves at the link's rate when enough tags are free.
// Completions are split on RCB-aligned boundaries into pieces of at most
// MPS (or of one RCB block), so the completions of one request go in
// address order (PCIe Base Spec 2.3.1.1); completions of different
// requests may interleave, as PCIe allows. Posted writes become visible
// after hostMem.writeArrived's delay.
type host struct {
	l         *Link
	dma       *DMA // l's
	mem       *hostMem
	perBytePS float64
	mps, rcb  uint64
	rcbSplit  bool
	jobs      []hostJob
	free      []uint32
	heap      []uint32 // job slots ordered by (ready, seq)
	scratch   tlp
}

type hostJob struct {
	start sim.Tick // when the first byte starts to be ready
	addr  uint64
	bytes uint64
	off   uint64 // bytes already sent
	ready sim.Tick
	end   uint64 // end offset of the next completion
	tag   uint32
	seq   uint64
}

var _ receiver = (*host)(nil)

func newHost(l *Link, mem *hostMem) *host {
	return &host{l: l, dma: l.dma, mem: mem,
		perBytePS: l.spec.HostReadLatencyPerByteNS * 1000,
		mps:       uint64(l.spec.MPSBytes), rcb: uint64(l.spec.RCBBytes),
		rcbSplit: l.spec.CompletionSplit == SplitRCB}
}

// receive takes TLPs arriving upstream: MRd starts a read job; MWr (DMA
// data, MSI-X) is absorbed by memory, and the request it ends completes
// when it is visible.
func (h *host) receive(now sim.Tick, t *tlp) {
	switch t.kind {
	case KindMRd:
		h.l.stats.HostReads++
		i := takeSlot(&h.free, &h.jobs)
		h.jobs[i] = hostJob{start: h.mem.readStart(now, t.addr, t.reqBytes), addr: t.addr, bytes: t.reqBytes,
			tag: t.tag, seq: h.l.down.nextSeq()}
		h.plan(&h.jobs[i])
		h.heapPush(i)
		h.l.down.kick()
	case KindMWr:
		if t.msix {
			h.dma.visibleAt(now, h.mem.interrupt(now), t.ref)
			return
		}
		vis := h.mem.writeArrived(now, t.addr, t.payload)
		if t.last {
			h.dma.visibleAt(now, vis, t.ref)
		}
	}
}

// early takes a posted write (or an MSI-X) as it leaves the NIC. Without
// the IOMMU, when it becomes visible depends only on its arrival time and
// on the writes before it, so its visibility is scheduled now, for the
// same time as on arrival; an MRd waits for its arrival. A write or MSI-X
// visible on arrival is left to its arrival, where it completes at once.
func (h *host) early(now, at sim.Tick, t *tlp) bool {
	m := h.mem
	if t.kind != KindMWr || m.iommu != nil {
		return false
	}
	if t.msix {
		if m.lastVis <= at {
			return false
		}
		h.dma.visibleAt(now, m.interrupt(at), t.ref)
		return true
	}
	delay := m.visDelay(t.payload)
	if delay == 0 {
		return false
	}
	vis := m.writeArrivedIn(at, t.addr, t.payload, delay)
	if t.last {
		h.dma.visibleAt(now, vis, t.ref)
	}
	return true
}

// inert: every TLP arriving at the host starts a read or makes a write
// visible.
func (h *host) inert(t *tlp) bool { return false }

// plan sets the job's next completion and the time its data is ready.
func (h *host) plan(j *hostJob) {
	cur := j.addr + j.off
	var e uint64
	if h.rcbSplit {
		e = cur - cur%h.rcb + h.rcb
	} else {
		x := cur + h.mps
		e = x - x%h.rcb
	}
	j.end = min(e, j.addr+j.bytes) - j.addr
	j.ready = j.start + sim.Tick(float64(j.end)*h.perBytePS+0.5)
}

func (h *host) less(a, b uint32) bool {
	x, y := &h.jobs[a], &h.jobs[b]
	return x.ready < y.ready || (x.ready == y.ready && x.seq < y.seq)
}

func (h *host) heapPush(i uint32) {
	h.heap = append(h.heap, i)
	c := len(h.heap) - 1
	for c > 0 {
		p := (c - 1) / 2
		if !h.less(h.heap[c], h.heap[p]) {
			break
		}
		h.heap[c], h.heap[p] = h.heap[p], h.heap[c]
		c = p
	}
}

func (h *host) heapFix0() {
	n := len(h.heap)
	c := 0
	for {
		l := 2*c + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.heap[r], h.heap[l]) {
			m = r
		}
		if !h.less(h.heap[m], h.heap[c]) {
			return
		}
		h.heap[c], h.heap[m] = h.heap[m], h.heap[c]
		c = m
	}
}

// peek offers the next completion (a source, tx.pick): the one whose data
// is ready first.
func (h *host) peek(now sim.Tick) (*tlp, sim.Tick) {
	if len(h.heap) == 0 {
		return nil, sim.MaxTick
	}
	i := h.heap[0]
	j := &h.jobs[i]
	if j.ready > now {
		return nil, j.ready
	}
	h.scratch = tlp{kind: KindCplD, class: classCpl, payload: j.end - j.off, addr: j.addr + j.off,
		tag: j.tag, seq: j.seq, ref: i, last: j.end == j.bytes}
	return &h.scratch, 0
}

// headReady is when the data of the completion peek offered became ready.
func (h *host) headReady() sim.Tick { return h.jobs[h.heap[0]].ready }

func (h *host) take(now sim.Tick, t *tlp) {
	j := &h.jobs[t.ref]
	j.off = j.end
	if j.off == j.bytes {
		last := len(h.heap) - 1
		h.heap[0] = h.heap[last]
		h.heap = h.heap[:last]
		h.free = append(h.free, t.ref)
	} else {
		h.plan(j)
	}
	h.heapFix0()
}
