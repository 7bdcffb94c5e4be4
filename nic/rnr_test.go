package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// A Send that finds no receive posted is answered with an RNR NAK and sent
// again after the RNR timer (docs/sources.md 12): a receive posted while
// the initiator waits takes it, the Send completes successfully, one RNR
// timer later than it would have, and neither QP goes to error.
func TestSendWithoutReceiveIsRetriedAfterTheRNRTimer(t *testing.T) {
	sp := DefaultSpec()
	p := newPairWire(t, sp, DefaultWireSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite)
	p.run() // registrations done: the Send's time is its own
	start := p.env.Engine.Now()
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 7, lsge(local, srcVA, 64), 0))
	p.env.Engine.RunUntil(start + 100*sim.US)
	require.Equal(t, uint64(1), p.b.a.Stats.RNRNaks)
	require.Empty(t, p.a.poll(), "the Send waits for the RNR timer")
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 42, lsge(remote, dstVA, 64)))
	p.run()
	require.Equal(t, Result{Status: StatusSuccess, QPContext: 1, RequestContext: 7, Type: OpSend}, p.a.one())
	require.Equal(t, Result{Status: StatusSuccess, BytesTransferred: 64, QPContext: 2, RequestContext: 42, Type: OpReceive}, p.b.one())
	require.Equal(t, memAt(p.a.a.Mem(), srcVA, 64), memAt(p.b.a.Mem(), dstVA, 64))
	require.Equal(t, uint64(1), p.a.a.Stats.RNRRetries)
	require.False(t, qa.err || qb.err, "an RNR NAK puts no QP in error")
	took := p.env.Engine.Now() - start
	t.Logf("Send with one RNR NAK completed after %v (RNR timer %d ns)", took, sp.RNRTimerNS)
	require.Greater(t, took, sim.Tick(sp.RNRTimerNS)*sim.NS)
}

// The requests a QP sent behind a Send answered with an RNR NAK arrive at
// the responder out of sequence: it drops them, and the initiator sends
// them again after the Send, in order. A Write behind the Send lands once,
// and every request completes in post order.
func TestRequestsBehindAnRNRNakGoAgainInOrder(t *testing.T) {
	sp := DefaultSpec()
	sp.RNRTimerNS = 20_000
	p := newPairWire(t, sp, DefaultWireSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite | MRAllowRemoteWrite)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.run()
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 1, lsge(local, srcVA, 64), 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA+pg, 128), dstVA+pg, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 3, lsge(local, srcVA+2*pg, 32), 0))
	p.env.Engine.RunUntil(p.env.Engine.Now() + 10*sim.US)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10, lsge(remote, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 11, lsge(remote, dstVA+2*pg, 64)))
	p.run()
	p.a.succeededInOrder(3)
	require.Equal(t, memAt(p.a.a.Mem(), srcVA+pg, 128), memAt(p.b.a.Mem(), dstVA+pg, 128))
	require.Equal(t, uint64(2), p.b.a.Stats.RNRDropped, "the Write and the second Send were dropped once")
	require.Equal(t, uint64(1), p.b.a.Stats.RNRNaks)
	require.Len(t, p.b.poll(), 2)
}

// Past nic.rnr_retry RNR NAKs the Send completes STATUS_REMOTE_RESOURCES,
// the connection is torn down (both QPs to error, §5.4) and the request
// the responder dropped behind it is cancelled; with rnr_retry 2 the Send
// went three times, two RNR timers apart.
func TestRNRRetriesExhaustedFailTheSend(t *testing.T) {
	sp := DefaultSpec()
	sp.RNRRetry, sp.RNRTimerNS = 2, 50_000
	p := newPairWire(t, sp, DefaultWireSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite | MRAllowRemoteWrite)
	p.run()
	start := p.env.Engine.Now()
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 1, lsge(local, srcVA, 64), 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA, 64), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusRemoteResources, res[0].Status)
	require.Equal(t, StatusCancelled, res[1].Status)
	require.True(t, qa.err && qb.err, "both QPs in error")
	require.Equal(t, uint64(3), p.b.a.Stats.RNRNaks)
	require.Equal(t, uint64(2), p.a.a.Stats.RNRRetries)
	require.Greater(t, p.env.Engine.Now()-start, 2*sim.Tick(sp.RNRTimerNS)*sim.NS)
}
