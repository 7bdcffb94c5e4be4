package nic

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// slowPlacerPair is a pair whose requester (host a) has a receive buffer
// of rxBytes and a PCIe link of two lanes, which places Read responses
// four times slower than the responder's eight lanes read them.
func slowPlacerPair(t *testing.T, rxBytes uint64) *pair {
	sp := DefaultSpec()
	sp.RxBufferBytes = rxBytes
	la := pcie.DefaultSpec()
	la.Lanes = 2
	return newPairLinks(t, sp, DefaultWireSpec(), la, pcie.DefaultSpec())
}

// postReads connects a QP pair and posts n Reads of B's 4 pages into A's
// 4 pages on it; it returns the initiator's QP, its sink and the remote
// token.
func (p *pair) postReads(n uint64) (*QP, *MR, uint32) {
	p.t.Helper()
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	for k := range n {
		require.Equal(p.t, StatusSuccess, p.a.a.Read(qa, k+1, lsge(local, srcVA, 4*pg), dstVA, tok, 0))
	}
	return qa, local, tok
}

// The peer sends a Read response packet only when the requester's receive
// buffer has room for it, and the room frees when the packet is placed:
// four Reads of 4 pages through a buffer of 2 pages hold at most 2 pages
// at any time on the requester's side, and fill it, so the responder does
// not read ahead of what the requester can place. Every byte lands, in
// order, and the buffer is empty at the end.
func TestReadResponsesWaitForRoomInTheRequestersReceiveBuffer(t *testing.T) {
	const buf = 2 * pg
	p := slowPlacerPair(t, buf)
	p.postReads(4)
	require.Equal(t, uint64(buf), p.runHolding(&p.a.a.req.rx), "the buffer filled")
	require.Positive(t, p.a.a.Stats.RxBufferWaits)
	p.a.succeededInOrder(4)
	require.True(t, bytes.Equal(pattern(4*pg, 100), memAt(p.a.a.Mem(), srcVA, 4*pg)), "the responses' bytes landed")
	require.Zero(t, p.a.a.req.rx.used, "every byte freed once placed")
	require.False(t, p.a.a.req.rxWaiting)
}

// The requester's placements never queue beyond its receive buffer: with
// a buffer of one packet, the requester's DMA engine holds or waits for at
// most two requests at any time (a placement and a CQE), however many
// Reads are in flight. Without the buffer the responder sent every
// response as fast as its own link read them, and 52 requests queued at
// once behind the requester's slower link.
func TestPlacementsQueueNoFurtherThanTheReceiveBuffer(t *testing.T) {
	p := slowPlacerPair(t, pg)
	p.postReads(16)
	queued := 0
	for p.env.Engine.Step() {
		queued = max(queued, p.a.a.dataDMA.wait.Len()+p.a.link.DMA().Outstanding())
	}
	require.LessOrEqual(t, queued, 2, "requests in or waiting for the DMA engine")
	p.a.succeededInOrder(16)
}

// A response packet that is not placed frees its room as it arrives: the
// Reads of a flushed QP place nothing, and a Read of another QP posted
// behind them still gets the whole buffer.
func TestResponsesNotPlacedFreeTheirRoom(t *testing.T) {
	p := slowPlacerPair(t, pg)
	qa, local, tok := p.postReads(2)
	qa2, _ := p.connect()
	p.env.Engine.RunUntil(p.env.Engine.Now() + 2*sim.US)
	require.Equal(t, StatusSuccess, p.a.a.Flush(qa))
	require.Equal(t, StatusSuccess, p.a.a.Read(qa2, 3, lsge(local, srcVA, 4*pg), dstVA, tok, 0))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 3)
	require.Equal(t, Result{Status: StatusSuccess, QPContext: 1, RequestContext: 3, Type: OpRead}, res[2])
	require.True(t, bytes.Equal(pattern(4*pg, 100), memAt(p.a.a.Mem(), srcVA, 4*pg)))
	require.Zero(t, p.a.a.req.rx.used)
}
