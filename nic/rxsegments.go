package nic

import "github.com/nicsim/nicsim/sim"

// A message of several packets moves through the responder packet by
// packet: the first packet is checked for the whole message, a later one
// joins it as it arrives, each Write or Send packet is placed once the
// message is checked and the packet served, and each Read response packet
// leaves once its own DMA read and those of the packets before it are
// done. The requester sends a message's packets back to back and in
// order, so they arrive one after another with no other message's
// between them.

// arriveMore takes packet p (not a message's first) into its message, the
// last to arrive; the packets of a message refused and answered already
// are served and dropped.
func (r *responder) arriveMore(now sim.Tick, p packet) {
	at := r.serve(now, &p)
	if n := r.q.Len(); n > 0 {
		id := r.q.At(n - 1)
		o := r.ops[id]
		if o.p.dstQP == p.dstQP && o.p.wrIdx == p.wrIdx && o.p.kind == p.kind && len(o.data) == int(p.seg) {
			o.data = append(o.data, p.data)
			r.a.eng.Schedule(at, sim.PrioDefault, r, rxEvMore|uint64(id))
			return
		}
	}
	r.a.wire.release(p.data)
	r.a.Stats.RemotePacketsDropped++
}

// served counts a later packet of message id as served; it is placed at
// once when the message's data is moving already.
func (r *responder) served(id int) {
	o := r.ops[id]
	o.in++
	if o.state == rxDMA {
		r.place(id)
	}
}

// place starts the DMA writes of the served packets of Write or Send id
// not yet placed, in order.
func (r *responder) place(id int) {
	a := r.a
	o := r.ops[id]
	for ; o.moved < o.in; o.moved++ {
		off, n := a.wire.spec.segment(o.p.length, uint64(o.moved))
		pages, po := pagesAt(o.pages, o.off, off)
		a.mem.writePages(pages, po, o.data[o.moved])
		a.wire.release(o.data[o.moved])
		o.data[o.moved] = nil
		a.dataDMA.payload(true, r, pages[0]+po, n, rxEvDMA|uint64(id))
	}
}

// read starts the DMA reads of Read id's response packets, in order, as
// the responder's transmit buffer has room for them (readMore). Each
// packet's bytes are taken as its DMA read starts; the DMA reads charge
// the time.
func (r *responder) read(now sim.Tick, id int) {
	o := r.ops[id]
	o.rdone = append(o.rdone[:0], make([]uint64, (o.segs+63)/64)...)
	r.reads.Push(id)
	r.readMore(now)
}

// readMore starts the DMA reads of the waiting Reads' response packets,
// oldest Read first, while the transmit buffer has room, and asks for a
// wake-up when it next frees bytes if some must wait. The packets of the
// Read at the head of the queue are read first, so the buffer always
// frees: they leave as their reads finish.
func (r *responder) readMore(now sim.Tick) {
	a := r.a
	r.tx.settle(now)
	for r.reads.Len() > 0 {
		id := r.reads.Peek()
		o := r.ops[id]
		for ; o.nread < o.segs; o.nread++ {
			off, n := a.wire.spec.segment(o.p.length, uint64(o.nread))
			if !r.tx.take(now, n) {
				r.wakeOnFree()
				return
			}
			pages, po := pagesAt(o.pages, o.off, off)
			b := a.wire.buf(n)
			a.mem.readPages(pages, po, b)
			o.data = append(o.data, b)
			a.dataDMA.payload(false, r, pages[0]+po, n, rxEvDMA|uint64(o.nread)<<32|uint64(id))
		}
		r.reads.Drop()
	}
	r.tx.idle(now)
}

// wakeOnFree asks for a wake-up when the transmit buffer next frees bytes
// (a response packet has left), unless one is asked for already.
func (r *responder) wakeOnFree() { r.tx.wake(r.a.eng, false, r, rxEvTxFree) }

// dmaDone records the end of the DMA of packet k of o: a Write or Send is
// done when every packet is placed; a Read's packet may leave (respond).
func (r *responder) dmaDone(o *rxOp, k uint64) {
	if o.p.kind == pktReadReq {
		o.rdone[k/64] |= 1 << (k % 64)
		return
	}
	if o.done++; o.done == o.segs {
		o.state = rxDone
	}
}

// respond sends, in order, the response packets of Read id whose DMA
// reads are done, each once it has room in the peer requester's receive
// buffer (rxbuffer.go); the Read is done when the last has left.
func (r *responder) respond(id int) {
	a := r.a
	o := r.ops[id]
	peer := &a.wire.ends[1-a.wireEnd].req
	for ; o.moved < o.segs && o.rdone[o.moved/64]&(1<<(o.moved%64)) != 0; o.moved++ {
		k := o.moved
		if !peer.rxTake(a.eng.Now(), uint64(len(o.data[k]))) {
			break // woken by rxFree
		}
		p := packet{kind: pktReadResp, dstQP: a.qps[o.p.dstQP].peer, wrIdx: o.p.wrIdx, length: o.p.length,
			seg: k, more: k+1 < o.segs, data: o.data[k]}
		o.data[k] = nil
		r.tx.leaves(a.wire.send(a.wireEnd, p), uint64(len(p.data)))
	}
	if o.moved == o.segs {
		o.state = rxDone
	}
	if r.reads.Len() > 0 {
		r.wakeOnFree()
	}
}
