package nic

import "github.com/nicsim/nicsim/sim"

// The requester's receive buffer (Spec.RxBufferBytes) holds the Read
// response packets that have left the peer's responder and are not yet
// placed in host memory. The peer's responder takes room for a packet
// before it sends it (rxTake) and waits, in order, when there is none; the
// requester frees the room when the packet's DMA write is done, or as it
// arrives when the packet is not placed (rxFree), and then wakes the
// waiting responder. The room returns to the sender the moment it is
// freed (no credit round trip), as the responder's own buffer does.

// rxTake takes n bytes of the receive buffer for a response packet the
// peer is about to send; false when they do not fit: the peer's responder
// waits for rxFree to wake it.
func (r *requester) rxTake(now sim.Tick, n uint64) bool {
	if r.rx.take(now, n) {
		return true
	}
	if !r.rxWaiting {
		r.rxWaiting = true
		r.a.Stats.RxBufferWaits++
	}
	return false
}

// rxFree frees the n bytes of a response packet that has been placed (or
// will not be) and wakes the peer's responder if a packet waits for room.
func (r *requester) rxFree(now sim.Tick, n uint64) {
	r.rx.drop(now, n)
	r.rx.idle(now) // a packet still waiting is refused again when its responder tries
	if r.rxWaiting {
		r.rxWaiting = false
		r.a.eng.Schedule(now, sim.PrioDefault, &r.a.wire.ends[1-r.a.wireEnd].resp, rxEvRxRoom)
	}
}

// placedBytes is the payload of the Read response packet of request w
// whose placement event carried arg: a full MTU but for the last packet.
func (r *requester) placedBytes(w *wr, arg uint64) uint64 {
	mtu := uint64(r.a.wire.spec.MTUBytes)
	if arg&reqPlacedLast == 0 {
		return mtu
	}
	n := uint64(w.sge.Length)
	return n - (r.a.wire.spec.segments(n)-1)*mtu
}
