package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
)

// A message is cut into packets of at most the path MTU, each with its
// headers and framing: RETH on a Write's first packet only, AETH on a Read
// response's first and last; a packet below the Ethernet minimum is padded
// to 64 B. A Write of 3 pages and 1 byte is four packets, the last of 1 B;
// a Read of 4097 B is one request and two response packets. Each moves
// exactly its bytes across the packet boundaries.
func TestWireCutsMessagesIntoMTUPackets(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite | MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	const n = 3*pg + 1
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA+7, n), dstVA+5, tok, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, memAt(p.a.a.Mem(), srcVA+7, n), memAt(p.b.a.Mem(), dstVA+5, n))
	st := &p.wire.Stats
	require.Equal(t, [2]uint64{4, 1}, st.Packets, "four Write packets, one ACK")
	require.Equal(t, [2]uint64{1, 1}, st.Messages)
	const frame = 62 + 20
	write := uint64(3*pg + 16 + 3*frame + 64 + 20)
	require.Equal(t, [2]uint64{write, 4 + frame}, st.Bytes)

	const m = pg + 1
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 2, lsge(local, srcVA+2*pg, m), dstVA+9, tok, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, memAt(p.b.a.Mem(), dstVA+9, m), memAt(p.a.a.Mem(), srcVA+2*pg, m))
	require.Equal(t, [2]uint64{5, 3}, st.Packets, "one Read request, two response packets")
	require.Equal(t, [2]uint64{write + 16 + frame, 4 + frame + m + 2*4 + 2*frame}, st.Bytes)
}

// A long message moves packet by packet. A Read's response packets each go
// on the wire as their own DMA read finishes, so the first arrives at the
// requester while the responder is still reading the rest from host
// memory; a Write's packets each leave once their own payload read is
// done. With a 256 B MTU a 16 KiB message is 64 packets: the first has
// arrived before the last has left, and the bytes land in order.
func TestLongMessagesMovePacketByPacket(t *testing.T) {
	const n = 4 * pg
	for _, read := range []bool{true, false} {
		p := mtuPair(t, 256)
		qa, _ := p.connect()
		local, remote := p.setup(MRAllowRemoteRead | MRAllowRemoteWrite)
		post, dir := p.a.a.Write, 0
		if read {
			post, dir = p.a.a.Read, 1
		}
		require.Equal(t, StatusSuccess, post(qa, 1, lsge(local, srcVA, n), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
		firstAt, lastSent := p.overlap(dir, n/256)
		require.Equal(t, StatusSuccess, p.a.one().Status)
		require.Equal(t, memAt(p.a.a.Mem(), srcVA, n), memAt(p.b.a.Mem(), dstVA, n), "the buffers agree after either copy")
		require.Equal(t, uint64(n/256), p.wire.Stats.Packets[dir])
		t.Logf("read %v: first packet arrived at %d ps, the last left at %d ps", read, firstAt, lastSent)
		require.Less(t, firstAt, lastSent, "read %v", read)
	}
}

// mtuPair is newPair with a wire of path MTU mtu.
func mtuPair(t *testing.T, mtu uint32) *pair {
	ws := DefaultWireSpec()
	ws.MTUBytes = mtu
	return newPairWire(t, DefaultSpec(), ws)
}

// overlap runs the pair to the end and returns when the first packet sent
// on direction dir (0: from a) arrived and when the packets-th was sent.
func (p *pair) overlap(dir int, packets uint64) (firstAt, lastSent int64) {
	firstAt, lastSent = -1, -1
	for p.env.Engine.Step() {
		d, sent := &p.wire.dirs[dir], p.wire.Stats.Packets[dir]
		if firstAt < 0 && sent > 0 {
			firstAt = int64(d.inFlight.At(0).arriveAt)
		}
		if lastSent < 0 && sent == packets {
			lastSent = int64(p.env.Engine.Now())
		}
	}
	return firstAt, lastSent
}

// A refused multi-packet Write moves no byte: its first packet is checked
// for the whole message and the NAK leaves when the check fails; packets of
// it that arrive after the NAK are dropped, and counted.
func TestRefusedLongWriteMovesNoByteAndDropsItsLaterPackets(t *testing.T) {
	p := mtuPair(t, 256)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead) // no remote write
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 4*pg), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
	require.Equal(t, uint64(64), p.wire.Stats.Packets[0])
	require.Equal(t, uint64(1), p.wire.Stats.Packets[1], "one NAK")
	dropped := p.b.a.Stats.RemotePacketsDropped
	t.Logf("%d of the 63 later packets arrived after the NAK", dropped)
	require.Positive(t, dropped)
	require.Less(t, dropped, uint64(64))
}

// A Send of several packets lands in the posted receive packet by packet;
// the receive's CQE reports the whole message.
func TestLongSendLandsInPostedReceive(t *testing.T) {
	p := mtuPair(t, 512)
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite)
	const n = 2*pg + 300
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 42, lsge(remote, dstVA+11, 3*pg)))
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 7, lsge(local, srcVA+5, n), 0))
	p.run()
	require.Equal(t, Result{Status: StatusSuccess, QPContext: 1, RequestContext: 7, Type: OpSend}, p.a.one())
	require.Equal(t, Result{Status: StatusSuccess, BytesTransferred: n, QPContext: 2, RequestContext: 42, Type: OpReceive}, p.b.one())
	require.Equal(t, memAt(p.a.a.Mem(), srcVA+5, n), memAt(p.b.a.Mem(), dstVA+11, n))
	require.Equal(t, uint64(17), p.wire.Stats.Packets[0])
}

// A Read places all its bytes or none: the first packet of its response
// checks the local sink for the whole response. A sink invalidated after
// that packet was placed does not cut the response in two: with a 256 B
// MTU, the 16 packets of a 4 KiB Read are all placed and the Read
// succeeds; a sink invalidated while the request is on its way places
// nothing and the Read fails.
func TestReadPlacesAllOrNothingOfItsResponse(t *testing.T) {
	for _, after := range []bool{true, false} {
		p := mtuPair(t, 256)
		qa, _ := p.connect()
		local, remote := p.setup(MRAllowRemoteRead)
		p.run()
		before := memAt(p.a.a.Mem(), srcVA, pg)
		require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(local, srcVA, pg), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
		placing := func() bool { return p.a.a.Stats.DataDMABytes > 0 } // the first response packet is placed
		if !after {
			placing = func() bool { return p.wire.Stats.Packets[0] > 0 } // the request has left
		}
		for !placing() && p.env.Engine.Step() {
		}
		require.NoError(t, p.a.a.TPT().Keys().Invalidate(mtt.Token(p.a.a.GetLocalTokenFromMr(local))))
		p.run()
		st, got := p.a.one().Status, memAt(p.a.a.Mem(), srcVA, pg)
		if after {
			require.Equal(t, StatusSuccess, st)
			require.Equal(t, memAt(p.b.a.Mem(), dstVA, pg), got, "every byte placed")
		} else {
			require.Equal(t, StatusAccessViolation, st)
			require.Equal(t, before, got, "no byte placed")
		}
	}
}
