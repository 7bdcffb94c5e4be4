package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// RC orders the requests of one QP, not those of different QPs: a Read
// posted on one QP leaves while a Write posted before it on another QP
// still waits for its payload read. With host a's memory 5 us away, the
// Write's payload takes 5 us to reach the NIC, and the Read, whose data
// host b reads quickly, completes first. (The requester sent its packets
// in execution order across QPs: the Read waited for the Write's payload
// and completed after it.) On one QP the Read still waits (RC).
func TestAReadDoesNotWaitForAnotherQPsWritePayload(t *testing.T) {
	la := pcie.DefaultSpec()
	la.HostReadLatencyFixedNS = 5000
	for _, sameQP := range []bool{false, true} {
		p := newPairLinks(t, DefaultSpec(), DefaultWireSpec(), la, pcie.DefaultSpec())
		q1, _ := p.connect()
		q2 := q1
		if !sameQP {
			q2, _ = p.connect()
		}
		local, remote := p.setup(MRAllowRemoteWrite | MRAllowRemoteRead)
		tok := p.b.a.GetRemoteTokenFromMr(remote)
		p.run()
		require.Equal(t, StatusSuccess, p.a.a.Write(q1, 1, lsge(local, srcVA, pg), dstVA, tok, 0))
		require.Equal(t, StatusSuccess, p.a.a.Read(q2, 2, lsge(local, srcVA+pg, 64), dstVA+pg, tok, 0))
		p.run()
		res := p.a.poll()
		require.Len(t, res, 2)
		first := []OpType{OpRead, OpWrite}
		if sameQP {
			first = []OpType{OpWrite, OpRead}
		}
		require.Equal(t, first, []OpType{res[0].Type, res[1].Type}, "same QP: %v", sameQP)
	}
}

// The responder acknowledges the requests of one QP in order, not those
// of different QPs: an empty Write on one QP is acknowledged while a 64
// KiB Write of another QP that arrived before it is still being placed
// through host b's one-lane gen1 link, so it completes first. (The
// responder answered in arrival order across QPs: the ACK waited for the
// whole placement.)
func TestAnAckDoesNotWaitForAnotherQPsPlacement(t *testing.T) {
	lb := pcie.DefaultSpec()
	lb.Gen, lb.Lanes = 1, 1
	p := newPairLinks(t, DefaultSpec(), DefaultWireSpec(), pcie.DefaultSpec(), lb)
	q1, _ := p.connect()
	q2, _ := p.connect()
	local, _ := p.a.register(srcVA, 16*pg, MRAllowLocalWrite)
	remote, _ := p.b.register(dstVA, 16*pg, MRAllowLocalWrite|MRAllowRemoteWrite)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	require.Equal(t, StatusSuccess, p.a.a.Write(q1, 1, lsge(local, srcVA, 16*pg), dstVA, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(q2, 2, lsge(local, srcVA, 0), dstVA, tok, 0))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, []uint64{2, 1}, []uint64{res[0].RequestContext, res[1].RequestContext})
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusSuccess, res[1].Status)
}

// A message whose first packets have left holds the wire for its others
// only while they will follow: when its QP's RNR retry voids the rest, the
// packets of other QPs go on. A Send meets an RNR NAK (1.5 us each way)
// while the first packet of a 4-page Write behind it on its QP is on a 10
// Gb/s wire and the others wait for room in a one-page transmit buffer; a
// Read of another QP posted then completes long before the RNR timer (20
// us) sends the first QP's requests again, and all of them complete once
// a receive is posted. (While the voided Write still held the wire, the
// Read never left.)
func TestAMessageCutShortByAnRNRRetryDoesNotHoldOtherQPs(t *testing.T) {
	sp := DefaultSpec()
	sp.RNRTimerNS, sp.TxBufferBytes = 20_000, pg
	ws := DefaultWireSpec()
	ws.GbitPerS, ws.LatencyNS = 10, 1500
	p := newPairWire(t, sp, ws)
	q1, qb := p.connect()
	q2, _ := p.connect()
	local, remote := p.setup(MRAllowLocalWrite | MRAllowRemoteWrite | MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	start := p.env.Engine.Now()
	require.Equal(t, StatusSuccess, p.a.a.Send(q1, 1, lsge(local, srcVA, 8), 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(q1, 2, lsge(local, srcVA, 4*pg), dstVA, tok, 0))
	p.env.Engine.RunUntil(start + 4*sim.US)
	require.Equal(t, uint64(1), p.b.a.Stats.RNRNaks, "the Send met its RNR NAK")
	require.Equal(t, uint64(2), p.wire.Stats.Packets[0], "the Send and the Write's first packet left")
	require.Equal(t, StatusSuccess, p.a.a.Read(q2, 3, lsge(local, srcVA, 64), dstVA, tok, 0))
	p.env.Engine.RunUntil(start + 15*sim.US)
	res := p.a.poll()
	require.Len(t, res, 1, "the other QP's Read completed during the RNR wait")
	require.Equal(t, uint64(3), res[0].RequestContext)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10, lsge(remote, dstVA+3*pg, pg)))
	p.run()
	require.Len(t, p.a.poll(), 2)
	require.Equal(t, uint64(1), p.b.a.Stats.RNRNaks)
}
