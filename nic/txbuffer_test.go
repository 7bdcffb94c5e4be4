package nic

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// slowWirePair is a pair whose transmit buffer holds txBytes, joined by a
// wire of gbps, slower than the PCIe link that reads the payloads.
func slowWirePair(t *testing.T, txBytes, gbps uint64) *pair {
	sp := DefaultSpec()
	sp.TxBufferBytes = txBytes
	ws := DefaultWireSpec()
	ws.GbitPerS = gbps
	return newPairWire(t, sp, ws)
}

// runHolding runs the pair to the end, checking after every event that
// tx holds no more than its size, and returns the most it held.
func (p *pair) runHolding(tx *txBuffer) uint64 {
	p.t.Helper()
	held := uint64(0)
	for p.env.Engine.Step() {
		tx.settle(p.env.Engine.Now())
		require.LessOrEqual(p.t, tx.used, tx.max, "at %d ps", p.env.Engine.Now())
		held = max(held, tx.used)
	}
	return held
}

// The transmit buffer holds a Write's packet from the start of its payload
// read until it has left on the wire, and the packets that do not fit wait
// in order. Over a 10 Gb/s wire, slower than the PCIe link, 16 Writes of 4
// KiB with a 16 KiB buffer hold at most 16 KiB at any time, and fill it:
// the NIC does not read every request ahead of the wire. All land with
// their bytes, and a Read posted behind them completes after them.
func TestTransmitBufferBoundsThePayloadReadAhead(t *testing.T) {
	const buf = 4 * pg
	p := slowWirePair(t, buf, 10)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite | MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	for k := range uint64(16) {
		off := (k % 4) * pg
		require.Equal(t, StatusSuccess, p.a.a.Write(qa, k+1, lsge(local, srcVA+off, pg), dstVA+off, tok, 0))
	}
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 17, lsge(local, srcVA, 64), dstVA+64, tok, 0))
	require.Equal(t, uint64(buf), p.runHolding(&p.a.a.req.tx), "the buffer filled")
	require.Positive(t, p.a.a.Stats.TxBufferWaits)
	p.a.succeededInOrder(17)
	require.True(t, bytes.Equal(pattern(4*pg, 1), memAt(p.b.a.Mem(), dstVA, 4*pg)), "the Writes' bytes landed")
	p.a.a.settle()
	require.Zero(t, p.a.a.req.tx.used, "every byte freed once the packets left")
	require.Zero(t, p.a.a.req.pend.Len())
}

// A message longer than the transmit buffer streams through it: a Write
// of 4 pages through a buffer of one moves all its bytes, each packet read
// as the one before it has left.
func TestMessageLongerThanTheTransmitBufferStreamsThroughIt(t *testing.T) {
	p := slowWirePair(t, pg, 100)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA+3, 4*pg-3), dstVA+1, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.True(t, bytes.Equal(memAt(p.a.a.Mem(), srcVA+3, 4*pg-3), memAt(p.b.a.Mem(), dstVA+1, 4*pg-3)))
	require.Equal(t, uint64(4), p.wire.Stats.Packets[0])
	require.Equal(t, uint64(1), p.a.a.Stats.TxBufferWaits)
}

// A Send that meets an RNR NAK while later requests of its QP still wait
// for room in the transmit buffer: the waiting ones are not sent, and go
// again, in order, with the retry.
func TestRequestsWaitingForTheTransmitBufferGoAgainWithTheRNRRetry(t *testing.T) {
	sp := DefaultSpec()
	sp.RNRTimerNS, sp.TxBufferBytes = 20_000, pg
	ws := DefaultWireSpec()
	ws.GbitPerS = 10
	p := newPairWire(t, sp, ws)
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite | MRAllowRemoteWrite | MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 1, lsge(local, srcVA, pg), 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA+pg, 2*pg), dstVA+pg, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 3, lsge(local, srcVA+3*pg, 64), dstVA, tok, 0))
	p.env.Engine.RunUntil(p.env.Engine.Now() + 10*sim.US)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10, lsge(remote, dstVA+3*pg, pg)))
	p.run()
	p.a.succeededInOrder(3)
	require.Equal(t, uint64(1), p.b.a.Stats.RNRNaks)
	require.True(t, bytes.Equal(memAt(p.a.a.Mem(), srcVA+pg, 2*pg), memAt(p.b.a.Mem(), dstVA+pg, 2*pg)))
	p.a.a.settle()
	require.Zero(t, p.a.a.req.tx.used, "the packets not sent freed their bytes")
}

// The responder reads a Read's response packets as its own transmit buffer
// has room: over a 10 Gb/s wire, two Reads of 4 pages with a buffer of one
// page hold one page at a time on the responder's side, and every byte
// lands, in order.
func TestReadResponsesWaitForRoomInTheRespondersTransmitBuffer(t *testing.T) {
	p := slowWirePair(t, pg, 10)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(local, srcVA, 2*pg), dstVA, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 2, lsge(local, srcVA+2*pg, 2*pg), dstVA+2*pg, tok, 0))
	require.Equal(t, uint64(pg), p.runHolding(&p.b.a.resp.tx), "the buffer filled")
	p.a.succeededInOrder(2)
	require.True(t, bytes.Equal(pattern(4*pg, 100), memAt(p.a.a.Mem(), srcVA, 4*pg)), "the responses' bytes landed")
	p.b.a.settle()
	require.Zero(t, p.b.a.resp.tx.used)
	require.Zero(t, p.b.a.resp.reads.Len())
}
