package nic

import "github.com/nicsim/nicsim/sim"

// txBuffer is a transmit buffer: the NIC memory that holds the payload of
// an outgoing packet from the start of its DMA read until the packet has
// left on the wire (Spec.TxBufferBytes). The requester has one for its
// Write and Send packets, the responder one for its Read response packets
// (separate, so that a response never waits for room behind requests that
// wait for the peer's responder). A packet whose payload does not fit
// waits, in order, for the packets ahead of it to leave. Without the bound a NIC whose wire is slower than
// its PCIe link would read ahead every request in flight, and its link
// would stay busy with reads the wire cannot yet take.
//
// A packet's bytes are freed when its last byte has left, a time known
// as it is put on the wire; they are settled lazily, in that order, before
// the buffer is next used or its meter read (Adapter.settle), and an event
// wakes the requester at the first such time only while a packet waits.
type txBuffer struct {
	max, used uint64
	frees     sim.FIFO[txFree] // in time order
	meter     *sim.Meter       // bytes held, of max
	waking    bool             // a wake-up at frees' first time is queued
}

// txFree is bytes n freed at time at.
type txFree struct {
	at sim.Tick
	n  uint64
}

// init sizes the buffer at max bytes and meters it as name.
func (b *txBuffer) init(a *Adapter, name string, max uint64) {
	b.max = max
	b.meter = a.meter(name, "bytes", b.max)
	b.meter.TrackWaits()
}

// settle frees the bytes of the packets that have left by now.
func (b *txBuffer) settle(now sim.Tick) {
	for b.frees.Len() > 0 && b.frees.Front().at <= now {
		f := b.frees.Pop()
		b.used -= f.n
		b.meter.Set(f.at, b.used)
	}
}

// take holds n bytes at now if they fit; settle first. Packets take room
// in order, so a packet refused is the one that waits (the meter's Waits)
// until a take succeeds or nothing waits any more (idle).
func (b *txBuffer) take(now sim.Tick, n uint64) bool {
	if b.used+n > b.max {
		b.meter.Waits(now, true)
		return false
	}
	b.used += n
	b.meter.Set(now, b.used)
	b.meter.Waits(now, false)
	return true
}

// idle tells the meter that no packet waits for room any more.
func (b *txBuffer) idle(now sim.Tick) { b.meter.Waits(now, false) }

// leaves frees n bytes at at, when the packet holding them has left
// (at is no earlier than any time given before).
func (b *txBuffer) leaves(at sim.Tick, n uint64) { b.frees.Push(txFree{at, n}) }

// drop frees n bytes at now: a packet that will not be sent, or (in a
// receive buffer) one that has been placed or dropped.
func (b *txBuffer) drop(now sim.Tick, n uint64) {
	b.settle(now)
	b.used -= n
	b.meter.Set(now, b.used)
}

// wake asks for h.Handle(at, arg), unless one is asked for already: at
// now when what waits fits now, else when bytes are next freed. With
// neither, the packets that hold the buffer have not left yet, and their
// owner asks again when they do. The handler clears waking.
func (b *txBuffer) wake(eng *sim.Engine, fitsNow bool, h sim.Handler, arg uint64) {
	if b.waking {
		return
	}
	switch {
	case fitsNow:
		eng.Schedule(eng.Now(), sim.PrioDefault, h, arg)
	case b.frees.Len() > 0: // a time past, not settled yet: now
		eng.Schedule(max(b.frees.Front().at, eng.Now()), sim.PrioDefault, h, arg)
	default:
		return
	}
	b.waking = true
}
