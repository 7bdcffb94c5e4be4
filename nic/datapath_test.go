package nic

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// Two hosts, each with a NIC on its own PCIe link, joined by a wire.
type pair struct {
	t    testing.TB
	env  *sim.Env
	a, b *harness // a: initiator side, b: responder side (both can do both)
	wire *Wire
}

func newPair(t testing.TB, spec Spec) *pair { return newPairWire(t, spec, DefaultWireSpec()) }

// newPairWire is newPair joined by a wire of ws.
func newPairWire(t testing.TB, spec Spec, ws WireSpec) *pair {
	return newPairLinks(t, spec, ws, pcie.DefaultSpec(), pcie.DefaultSpec())
}

// newPairLinks is newPairWire with PCIe links of la (host a) and lb.
func newPairLinks(t testing.TB, spec Spec, ws WireSpec, la, lb pcie.Spec) *pair {
	t.Helper()
	env := sim.NewEnv(1)
	side := func(name string, ls pcie.Spec) *harness {
		link, err := pcie.New(name+".PCIe", ls, env, sim.ClockDomain{Period: sim.Tick(spec.ClockPeriodPS)})
		require.NoError(t, err)
		a, err := New(name, spec, env, link, link.DMA())
		require.NoError(t, err)
		st, pd := a.CreatePD()
		require.Equal(t, StatusSuccess, st)
		st, cq := a.CreateCQ(4096)
		require.Equal(t, StatusSuccess, st)
		return &harness{t: t, env: env, link: link, a: a, pd: pd, cq: cq}
	}
	p := &pair{t: t, env: env, a: side("A", la), b: side("B", lb)}
	w, err := NewWire("Wire", ws, p.a.a, p.b.a)
	require.NoError(t, err)
	p.wire = w
	return p
}

// connect returns a connected QP pair (initiator on a, responder on b).
func (p *pair) connect() (*QP, *QP) { return p.connectDepth(64) }

// connectDepth is connect with queues of depth WRs.
func (p *pair) connectDepth(depth uint32) (*QP, *QP) {
	p.t.Helper()
	st, qa := p.a.a.CreateQP(p.a.pd, p.a.cq, 1, depth, depth)
	require.Equal(p.t, StatusSuccess, st)
	st, qb := p.b.a.CreateQP(p.b.pd, p.b.cq, 2, depth, depth)
	require.Equal(p.t, StatusSuccess, st)
	require.NoError(p.t, ConnectQPs(qa, qb))
	return qa, qb
}

func (p *pair) run() { p.env.Engine.Run() }

// pattern returns n bytes of a recognisable pattern starting at seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func memAt(m *HostMemory, addr uint64, n int) []byte {
	b := make([]byte, n)
	m.Read(addr, b)
	return b
}

const (
	srcVA = 0x1000_0000 // initiator buffers
	dstVA = 0x2000_0000 // responder region
)

// setup registers a local source/sink buffer on A (4 pages, local write)
// and a region of 4 pages on B with flags, fills both with patterns, and
// returns the tokens.
func (p *pair) setup(flags MRFlags) (local *MR, remote *MR) {
	p.t.Helper()
	local, _ = p.a.register(srcVA, 4*pg, MRAllowLocalWrite|MRRDMAReadSink)
	remote, _ = p.b.register(dstVA, 4*pg, flags)
	p.a.a.Mem().Write(srcVA, pattern(4*pg, 1))
	p.b.a.Mem().Write(dstVA, pattern(4*pg, 100))
	return local, remote
}

func lsge(mr *MR, va uint64, n uint32) SGE {
	return SGE{VirtualAddress: va, Length: n, Token: mr.a.GetLocalTokenFromMr(mr)}
}

// Rule 25 (granted): a Write moves exactly its bytes; the bytes around are
// untouched; the initiator's CQE is Type Write, success.
func TestRemoteWriteMovesExactlyItsBytes(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	const off, n = 4000, 300 // crosses a page boundary
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 5, lsge(local, srcVA+10, n), dstVA+off, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, Result{Status: StatusSuccess, QPContext: 1, RequestContext: 5, Type: OpWrite}, p.a.one())
	after := memAt(p.b.a.Mem(), dstVA, 4*pg)
	want := append([]byte(nil), before...)
	copy(want[off:], memAt(p.a.a.Mem(), srcVA+10, n))
	require.True(t, bytes.Equal(want, after), "exactly [off, off+n) changed")
	require.NotEqual(t, before[off:off+n], after[off:off+n])
}

// Rule 25, 5.4: a Write without the remote-write right moves no byte, the
// initiator gets STATUS_ACCESS_VIOLATION, both QPs go to error: the
// initiator's later request and the responder's posted receive complete
// with STATUS_CANCELLED.
func TestRemoteWriteWithoutRightMovesNoByteAndTearsDown(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 77, lsge(remote, dstVA, 64)))
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 64), dstVA, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 2, lsge(local, srcVA, 64), dstVA, tok, 0))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusAccessViolation, res[0].Status)
	require.Equal(t, OpWrite, res[0].Type)
	require.Equal(t, StatusCancelled, res[1].Status)
	rb := p.b.one()
	require.Equal(t, StatusCancelled, rb.Status)
	require.Equal(t, uint64(77), rb.RequestContext)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
	require.Equal(t, pattern(64, 1), memAt(p.a.a.Mem(), srcVA, 64)) // the Read placed nothing
	require.Equal(t, uint64(1), p.b.a.Stats.RemoteRefused[mtt.ReasonNoRemoteWrite])
}

// 5.4: the adapter may report STATUS_REMOTE_RESOURCES instead.
func TestRemoteAccessErrorStatusIsAdapterSetting(t *testing.T) {
	sp := DefaultSpec()
	sp.RemoteAccessErrorStatus = StatusRemoteResources
	p := newPair(t, sp)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 8), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, StatusRemoteResources, p.a.one().Status)
}

// Rule 25 (granted): a Read brings exactly the remote bytes into the local
// sink and nothing else changes.
func TestRemoteReadPlacesExactlyTheRemoteBytes(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	beforeA := memAt(p.a.a.Mem(), srcVA, 4*pg)
	beforeB := memAt(p.b.a.Mem(), dstVA, 4*pg)
	const n = 5000
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 3, lsge(local, srcVA+100, n), dstVA+50, p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	res := p.a.one()
	require.Equal(t, StatusSuccess, res.Status)
	require.Equal(t, OpRead, res.Type)
	want := append([]byte(nil), beforeA...)
	copy(want[100:], beforeB[50:50+n])
	require.Equal(t, want, memAt(p.a.a.Mem(), srcVA, 4*pg))
	require.Equal(t, beforeB, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// 5.4: the whole range is checked before any byte moves: a Write that
// runs one byte past the region changes nothing; so does a wrapping one.
func TestRemoteWritePastRegionEndMovesNoByte(t *testing.T) {
	for _, c := range []struct {
		name string
		va   uint64
		n    uint32
	}{{"one byte past the end", dstVA + 4*pg - 99, 100}, {"below the start", dstVA - 1, 10}, {"wraps", ^uint64(0) - 5, 64}} {
		t.Run(c.name, func(t *testing.T) {
			p := newPair(t, DefaultSpec())
			qa, _ := p.connect()
			local, remote := p.setup(MRAllowRemoteWrite)
			before := memAt(p.b.a.Mem(), dstVA-pg, 6*pg)
			require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, c.n), c.va, p.b.a.GetRemoteTokenFromMr(remote), 0))
			p.run()
			require.Equal(t, StatusAccessViolation, p.a.one().Status)
			require.Equal(t, before, memAt(p.b.a.Mem(), dstVA-pg, 6*pg))
		})
	}
}

// 5.4: zero-length Read and Write move nothing and check no token: they
// succeed even with a dead token.
func TestZeroLengthReadWriteSucceedWithoutTokenCheck(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, _ := p.setup(MRAllowRemoteWrite)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 0), 0xdead, 0xbad0bad, 0))
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 2, lsge(local, srcVA, 0), 0xdead, 0xbad0bad, 0))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusSuccess, res[1].Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// Rule 29: after DeregisterMr the remote token is dead: a Write moves no
// byte and fails with ACCESS_VIOLATION.
func TestRemoteWriteAfterDeregisterMovesNoByte(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	p.b.deregister(remote)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 64), dstVA, tok, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// Send/Receive: the bytes land in the posted receive buffer, the receive
// CQE reports BytesTransferred and Type Receive; the Send's CQE Type Send.
func TestSendLandsInPostedReceive(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 42, lsge(remote, dstVA+pg, 1000)))
	require.Equal(t, StatusSuccess, p.a.a.Send(qa, 7, lsge(local, srcVA+5, 600), 0))
	p.run()
	require.Equal(t, Result{Status: StatusSuccess, QPContext: 1, RequestContext: 7, Type: OpSend}, p.a.one())
	require.Equal(t, Result{Status: StatusSuccess, BytesTransferred: 600, QPContext: 2, RequestContext: 42, Type: OpReceive}, p.b.one())
	want := append([]byte(nil), before...)
	copy(want[pg:], memAt(p.a.a.Mem(), srcVA+5, 600))
	require.Equal(t, want, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// windowPair binds a window on B's region through qb (bind posted on qb)
// and returns its token.
func (p *pair) bindWindow(qb *QP, remote *MR, va, n uint64, flags OpFlags) (*MW, uint32) {
	p.t.Helper()
	mw := p.b.mw()
	require.Equal(p.t, StatusSuccess, p.b.a.Bind(qb, 0, remote, mw, va, n, flags))
	tok := p.b.a.GetRemoteTokenFromMw(mw)
	p.run()
	res := p.b.poll()
	require.Len(p.t, res, 1)
	require.Equal(p.t, StatusSuccess, res[0].Status)
	return mw, tok
}

// Rule 57: SendAndInvalidate invalidates the window before the receive is
// signalled as ReceiveAndInvalidate carrying the token; afterwards the
// token is dead remotely (a Write moves no byte) and a local Invalidate of
// it is an error completion.
func TestSendAndInvalidateReportsReceiveAndInvalidateWithToken(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	mw, wtok := p.bindWindow(qb, remote, dstVA+pg, pg, OpAllowRemoteWrite)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 9, lsge(remote, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.a.a.SendAndInvalidate(qa, 1, lsge(local, srcVA, 16), wtok, 0))
	p.run()
	ra := p.a.one()
	require.Equal(t, OpSend, ra.Type)
	require.Equal(t, StatusSuccess, ra.Status)
	rb := p.b.one()
	require.Equal(t, Result{Status: StatusSuccess, BytesTransferred: 16, QPContext: 2, RequestContext: 9,
		Type: OpReceiveAndInvalidate, TypeSpecific: uint64(wtok)}, rb)
	e, _ := p.b.a.tpt.Keys().Entry(mw.Index())
	require.Equal(t, mtt.StateInvalid, e.State)
	// The MR can now be deregistered (no window bound).
	require.Zero(t, remote.windows)
	// A later Invalidate of that window is an error completion (rule 57).
	require.Equal(t, StatusSuccess, p.b.a.InvalidateMw(qb, 3, mw, 0))
	p.run()
	require.Equal(t, StatusInvalidDeviceState, p.b.one().Status)
}

// Rules 56, 57: after remote invalidation the window token moves no byte.
func TestRemoteWriteAfterRemoteInvalidationMovesNoByte(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	_, wtok := p.bindWindow(qb, remote, dstVA+pg, pg, OpAllowRemoteWrite)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 9, lsge(remote, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.a.a.SendAndInvalidate(qa, 1, lsge(local, srcVA, 16), wtok, 0))
	p.run()
	p.a.poll()
	p.b.poll()
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA, 64), dstVA+pg, wtok, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// Rule 57: an invalid token from the peer aborts the connection: the Send
// fails, no byte lands, the receive is flushed.
func TestSendAndInvalidateWithBadTokenAbortsConnection(t *testing.T) {
	for _, regMrToken := range []bool{false, true} {
		p := newPair(t, DefaultSpec())
		qa, qb := p.connect()
		local, remote := p.setup(MRAllowRemoteWrite)
		tok := uint32(0x12345)
		if regMrToken {
			tok = p.b.a.GetRemoteTokenFromMr(remote) // rule 54: never an NdkRegisterMr MR
		}
		badSendAndInvalidate(t, p, qa, qb, local, remote, tok)
		e, _ := p.b.a.tpt.Keys().Entry(remote.Index())
		require.Equal(t, mtt.StateValid, e.State)
	}
}

func badSendAndInvalidate(t *testing.T, p *pair, qa, qb *QP, local, remote *MR, tok uint32) {
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 9, lsge(remote, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.a.a.SendAndInvalidate(qa, 1, lsge(local, srcVA, 16), tok, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, StatusCancelled, p.b.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// 5.5: a window answers only through the QP it was bound on; the same
// token through another connection moves no byte.
func TestWindowAnswersOnlyThroughItsQP(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	qa2, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	_, wtok := p.bindWindow(qb, remote, dstVA, 2*pg, OpAllowRemoteWrite)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa2, 1, lsge(local, srcVA, 64), dstVA, wtok, 0))
	p.run()
	ra := p.a.one()
	require.Equal(t, StatusAccessViolation, ra.Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
	require.Equal(t, uint64(1), p.b.a.Stats.RemoteRefused[mtt.ReasonWindowQPMismatch])
	// Through its own QP it works, and only inside the window.
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA, 64), dstVA+8, wtok, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, pattern(64, 1), memAt(p.b.a.Mem(), dstVA+8, 64))
}

// 5.3, rule 50: after invalidate and rebind, a Write with the token of the
// earlier binding moves no byte; the new token works.
func TestStaleWindowTokenAfterRebindRefusedRemotely(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	mw, old := p.bindWindow(qb, remote, dstVA, pg, OpAllowRemoteWrite)
	require.Equal(t, StatusSuccess, p.b.a.InvalidateMw(qb, 0, mw, 0))
	p.run()
	require.Len(t, p.b.poll(), 1)
	require.Equal(t, StatusSuccess, p.b.a.Bind(qb, 0, remote, mw, dstVA, pg, OpAllowRemoteWrite))
	fresh := p.b.a.GetRemoteTokenFromMw(mw)
	p.run()
	require.Len(t, p.b.poll(), 1)
	require.NotEqual(t, old, fresh)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 32), dstVA, old, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
}

// Rule 23: with ReadSinkRequired the adapter does not report
// RDMA_READ_SINK_NOT_REQUIRED, and a Read into an MR registered without
// RDMA_READ_SINK fails with ACCESS_VIOLATION and places no byte; with the
// flag it works.
func TestReadSinkRequiredByAdapterFlag(t *testing.T) {
	sp := DefaultSpec()
	sp.ReadSinkRequired = true
	p := newPair(t, sp)
	require.Zero(t, p.a.a.Info().AdapterFlags&AdapterRDMAReadSinkNotRequired)
	qa, _ := p.connect()
	sink, remote := p.setup(MRAllowRemoteRead) // setup's sink has RDMA_READ_SINK
	plain, _ := p.a.register(srcVA+16*pg, pg, MRAllowLocalWrite)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	before := memAt(p.a.a.Mem(), srcVA+16*pg, pg)
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(plain, srcVA+16*pg, 64), dstVA, tok, 0))
	p.run()
	res := p.a.one()
	require.Equal(t, StatusAccessViolation, res.Status)
	require.Equal(t, before, memAt(p.a.a.Mem(), srcVA+16*pg, pg))
	// A fresh connection: the sink registered with RDMA_READ_SINK works.
	qa2, _ := p.connect()
	require.Equal(t, StatusSuccess, p.a.a.Read(qa2, 2, lsge(sink, srcVA, 64), dstVA, tok, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, pattern(64, 100), memAt(p.a.a.Mem(), srcVA, 64))
}

// Rules 59, 60: the privileged token is synchronous, names host physical
// addresses for local access without registration, and never grants
// remote access: a peer's Write with it moves no byte.
func TestPrivilegedTokenIsLocalOnlyNeverRemote(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	_, remote := p.setup(MRAllowRemoteRead)
	priv := p.a.a.GetPrivilegedMemoryRegionToken(p.a.pd)
	require.Equal(t, priv, p.a.a.GetPrivilegedMemoryRegionToken(p.a.pd))
	const phys = 0x3000_0800 // never registered on A
	before := memAt(p.a.a.Mem(), phys-64, 256)
	// Local use as an RDMA Read sink (the adapter reports READ_SINK_NOT_REQUIRED).
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, SGE{VirtualAddress: phys, Length: 128, Token: priv}, dstVA+8,
		p.b.a.GetRemoteTokenFromMr(remote), 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	want := append([]byte(nil), before...)
	copy(want[64:], memAt(p.b.a.Mem(), dstVA+8, 128))
	require.Equal(t, want, memAt(p.a.a.Mem(), phys-64, 256))
	// Remote use: B writes to A with A's privileged token: refused.
	src, _ := p.b.register(0x5000_0000, pg, MRAllowLocalWrite)
	p.b.a.Mem().Write(0x5000_0000, pattern(64, 9))
	after := memAt(p.a.a.Mem(), phys-64, 256)
	require.Equal(t, StatusSuccess, p.b.a.Write(qb, 2, lsge(src, 0x5000_0000, 64), phys, priv, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.b.one().Status)
	require.Equal(t, after, memAt(p.a.a.Mem(), phys-64, 256))
}

// Rule 8: NdkFlush cancels posted receives as well as initiator requests.
func TestFlushCancelsPostedReceives(t *testing.T) {
	p := newPair(t, DefaultSpec())
	_, qb := p.connect()
	_, remote := p.setup(MRAllowLocalWrite)
	for i := uint64(0); i < 3; i++ {
		require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 10+i, lsge(remote, dstVA, 64)))
	}
	require.Equal(t, StatusSuccess, p.b.a.Flush(qb))
	p.run()
	rb := p.b.poll()
	require.Len(t, rb, 3)
	for i, r := range rb {
		require.Equal(t, StatusCancelled, r.Status)
		require.Equal(t, uint64(10+i), r.RequestContext)
		require.Equal(t, OpReceive, r.Type)
	}
}

// Rules 6, 47: a Bind with READ_FENCE does not begin before every earlier
// RDMA Read of its QP has completed.
func TestBindWithReadFenceWaitsForEarlierRead(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	mw := p.a.mw()
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(local, srcVA, 64), dstVA, p.b.a.GetRemoteTokenFromMr(remote), 0))
	require.Equal(t, StatusSuccess, p.a.a.Bind(qa, 2, local, mw, srcVA, pg, OpAllowRemoteRead|OpReadFence))
	p.run()
	res := p.a.poll()
	require.Len(t, res, 2)
	require.Equal(t, OpRead, res[0].Type)
	require.Equal(t, OpBind, res[1].Type)
	require.Equal(t, StatusSuccess, res[0].Status)
	require.Equal(t, StatusSuccess, res[1].Status)
	require.NotZero(t, p.a.a.Stats.ReadFenceStalls)
	require.Equal(t, pattern(64, 100), memAt(p.a.a.Mem(), srcVA, 64))
}

// Rules 56, 57: SendAndInvalidate of a fast-registered MR's token: the
// receiver invalidates it, reports ReceiveAndInvalidate with the token; a
// later Write with it moves no byte; the MR may be fast-registered again.
func TestSendAndInvalidateOfFastRegisterMrToken(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	local, remote := p.setup(MRAllowLocalWrite)
	fr := p.b.frmr(4, true)
	pgs := []uint64{dstVA + 2*pg, dstVA + 3*pg}
	require.Equal(t, StatusSuccess, p.b.a.FastRegister(qb, 0, fr, pgs, 0, 2*pg, 0x9000_0000, OpAllowRemoteWrite))
	p.run()
	require.Len(t, p.b.poll(), 1)
	tok := p.b.a.GetRemoteTokenFromMr(fr)
	// The FR region works remotely first.
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 1, lsge(local, srcVA, 8), 0x9000_0000+pg, tok, 0))
	require.Equal(t, StatusSuccess, p.b.a.Receive(qb, 5, lsge(remote, dstVA, 64)))
	require.Equal(t, StatusSuccess, p.a.a.SendAndInvalidate(qa, 2, lsge(local, srcVA, 8), tok, 0))
	p.run()
	ra := p.a.poll()
	require.Len(t, ra, 2)
	require.Equal(t, StatusSuccess, ra[0].Status)
	require.Equal(t, StatusSuccess, ra[1].Status)
	require.Equal(t, pattern(8, 1), memAt(p.b.a.Mem(), dstVA+3*pg, 8))
	rb := p.b.one()
	require.Equal(t, OpReceiveAndInvalidate, rb.Type)
	require.Equal(t, uint64(tok), rb.TypeSpecific)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 3, lsge(local, srcVA+64, 8), 0x9000_0000, tok, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, before, memAt(p.b.a.Mem(), dstVA, 4*pg))
	// The refused Write put qb in error (5.4); on a new connection the MR
	// may be fast-registered again (rule 56).
	_, qb2 := p.connect()
	require.Equal(t, StatusSuccess, p.b.a.FastRegister(qb2, 0, fr, pgs, 0, 2*pg, 0x9000_0000, OpAllowRemoteWrite))
	p.run()
	rb = p.b.one()
	require.Equal(t, OpFastRegister, rb.Type)
	require.Equal(t, StatusSuccess, rb.Status)
}

// Rule 52: windows may overlap with independent rights; after
// invalidation a window may be bound again through another QP, and then
// answers only through that one.
func TestOverlappingWindowsIndependentRightsAndRebindElsewhere(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa1, qb1 := p.connect()
	qa2, qb2 := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite)
	ro, roTok := p.bindWindow(qb1, remote, dstVA, 2*pg, OpAllowRemoteRead)
	_, rwTok := p.bindWindow(qb1, remote, dstVA+pg, 2*pg, OpAllowRemoteWrite)
	before := memAt(p.b.a.Mem(), dstVA, 4*pg)
	// Write through the write window into the overlap: lands.
	require.Equal(t, StatusSuccess, p.a.a.Write(qa1, 1, lsge(local, srcVA, 16), dstVA+pg+8, rwTok, 0))
	p.run()
	ra := p.a.one()
	require.Equal(t, StatusSuccess, ra.Status)
	want := append([]byte(nil), before...)
	copy(want[pg+8:], pattern(16, 1))
	require.Equal(t, want, memAt(p.b.a.Mem(), dstVA, 4*pg))
	// The same bytes through the read-only window: refused, nothing moves.
	require.Equal(t, StatusSuccess, p.a.a.Write(qa1, 2, lsge(local, srcVA+32, 16), dstVA+pg+8, roTok, 0))
	p.run()
	require.Equal(t, StatusAccessViolation, p.a.one().Status)
	require.Equal(t, want, memAt(p.b.a.Mem(), dstVA, 4*pg))
	// qb1 is in error now; the read-only window is invalidated and bound
	// again through qb2, where a Read through it works.
	require.Equal(t, StatusSuccess, p.b.a.InvalidateMw(qb2, 0, ro, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.b.poll()[0].Status)
	require.Equal(t, StatusSuccess, p.b.a.Bind(qb2, 0, remote, ro, dstVA, pg, OpAllowRemoteRead))
	roTok2 := p.b.a.GetRemoteTokenFromMw(ro)
	p.run()
	require.Equal(t, StatusSuccess, p.b.poll()[0].Status)
	require.Equal(t, StatusSuccess, p.a.a.Read(qa2, 3, lsge(local, srcVA+2*pg, 32), dstVA+4, roTok2, 0))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, want[4:36], memAt(p.a.a.Mem(), srcVA+2*pg, 32))
}

// Rule 58: without RDMA_READ_LOCAL_INVALIDATE_SUPPORTED the Read flag
// 0x100 is ignored: the Read succeeds and the sink's token stays valid.
func TestReadLocalInvalidateIgnoredWithoutAdapterSupport(t *testing.T) {
	p := newPair(t, DefaultSpec())
	require.Zero(t, p.a.a.Info().AdapterFlags&AdapterRDMAReadLocalInvalidateSupported)
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteRead)
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(local, srcVA, 64), dstVA, p.b.a.GetRemoteTokenFromMr(remote), OpRDMAReadLocalInvalidate))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	require.Equal(t, pattern(64, 100), memAt(p.a.a.Mem(), srcVA, 64))
	e, _ := p.a.a.tpt.Keys().Entry(local.Index())
	require.Equal(t, mtt.StateValid, e.State)
}

// Requests of a connection are served in order: a Read followed by a
// Write to the same bytes returns the bytes from before the Write.
func TestReadThenWriteSameBytesReadSeesOldBytes(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connect()
	local, remote := p.setup(MRAllowRemoteWrite | MRAllowRemoteRead)
	tok := p.b.a.GetRemoteTokenFromMr(remote)
	old := memAt(p.b.a.Mem(), dstVA, 64)
	require.Equal(t, StatusSuccess, p.a.a.Read(qa, 1, lsge(local, srcVA+pg, 64), dstVA, tok, 0))
	require.Equal(t, StatusSuccess, p.a.a.Write(qa, 2, lsge(local, srcVA, 64), dstVA, tok, 0))
	p.run()
	ra := p.a.poll()
	require.Len(t, ra, 2)
	require.Equal(t, StatusSuccess, ra[0].Status)
	require.Equal(t, StatusSuccess, ra[1].Status)
	require.Equal(t, old, memAt(p.a.a.Mem(), srcVA+pg, 64))
	require.Equal(t, pattern(64, 1), memAt(p.b.a.Mem(), dstVA, 64))
}

// The wire serialises each direction at its rate and adds its latency:
// 100 Gbit/s = 80 ps per byte, 500 ns; a frame is its payload, its
// headers (62 B, RETH 16 on a Write, AETH 4 on an ACK) and 20 B of
// Ethernet framing.
func TestWireSerialisesFramesAndAddsLatency(t *testing.T) {
	p := newPair(t, DefaultSpec())
	w := p.wire
	w.send(0, packet{kind: pktWriteReq, data: make([]byte, 1000)})
	w.send(0, packet{kind: pktAck})
	d := &w.dirs[0].inFlight
	write, ack := uint64(1000+16+62+20), uint64(4+62+20)
	require.Equal(t, sim.Tick(write*80)+500*sim.NS, d.At(0).arriveAt)
	require.Equal(t, sim.Tick((write+ack)*80)+500*sim.NS, d.At(1).arriveAt)
	require.Equal(t, write+ack, w.Stats.Bytes[0])
	require.Equal(t, uint64(2), w.Stats.Packets[0])
}

// A QP's records of its outstanding WRs are a ring of at least its depth:
// on a queue of depth 3, rounds of Reads that refill it complete each
// with its own context, in order, and place their own bytes.
func TestReadsOnQueueOfOddDepthCompleteEachInOrder(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, _ := p.connectDepth(3)
	local, remote := p.setup(MRAllowRemoteRead)
	rtok := p.b.a.GetRemoteTokenFromMr(remote)
	want := memAt(p.b.a.Mem(), dstVA, 4*pg)
	ctx := uint64(0)
	for round := range 4 {
		for range 3 {
			off := uint64(ctx) * 100
			require.Equal(t, StatusSuccess, p.a.a.Read(qa, ctx, lsge(local, srcVA+off, 100), dstVA+off, rtok, 0), "round %d", round)
			ctx++
		}
		p.run()
		res := p.a.poll()
		require.Len(t, res, 3)
		for i, r := range res {
			require.Equal(t, StatusSuccess, r.Status)
			require.Equal(t, OpRead, r.Type)
			require.Equal(t, ctx-3+uint64(i), r.RequestContext)
		}
	}
	require.Equal(t, want[:ctx*100], memAt(p.a.a.Mem(), srcVA, int(ctx)*100))
}
