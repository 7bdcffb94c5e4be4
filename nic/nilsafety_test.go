package nic

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every call that takes an object accepts a nil one: a status or a zero
// value, never a panic (a consumer's bug must not crash the simulator).
func TestNilObjectsGiveAStatusNotAPanic(t *testing.T) {
	p := newPair(t, DefaultSpec())
	a := p.a.a
	qa, _ := p.connect()
	sge := SGE{VirtualAddress: 0x1000, Length: 8}
	noop := func(uint64, Status) {}
	calls := map[string]func() any{
		"GetCQResults":                   func() any { return len(a.GetCQResults(nil, 4)) },
		"PollCQ":                         func() any { return a.PollCQ(nil, make([]Result, 4)) },
		"GetRemoteTokenFromMr":           func() any { return a.GetRemoteTokenFromMr(nil) },
		"GetLocalTokenFromMr":            func() any { return a.GetLocalTokenFromMr(nil) },
		"GetRemoteTokenFromMw":           func() any { return a.GetRemoteTokenFromMw(nil) },
		"GetPrivilegedMemoryRegionToken": func() any { return a.GetPrivilegedMemoryRegionToken(nil) },
		"ArmCQ":                          func() any { return a.ArmCQ(nil, func() {}) },
		"CreateQP":                       func() any { st, _ := a.CreateQP(nil, nil, 0, 4, 4); return st },
		"CreateMr":                       func() any { st, _ := a.CreateMr(nil, true, nil, 0); return st },
		"CreateMw":                       func() any { st, _ := a.CreateMw(nil, nil, 0); return st },
		"InitializeFastRegisterMr":       func() any { return a.InitializeFastRegisterMr(nil, 1, true, noop, 0) },
		"RegisterMr": func() any {
			return a.RegisterMr(nil, []MDL{{VirtualAddress: 0x1000, ByteCount: 4096}}, 4096, 0, noop, 0)
		},
		"DeregisterMr":       func() any { return a.DeregisterMr(nil, noop, 0) },
		"FastRegister qp":    func() any { return a.FastRegister(nil, 0, nil, []uint64{0}, 0, 4096, 0, 0) },
		"FastRegister mr":    func() any { return a.FastRegister(qa, 0, nil, []uint64{0}, 0, 4096, 0, 0) },
		"Bind":               func() any { return a.Bind(qa, 0, nil, nil, 0, 8, 0) },
		"Invalidate":         func() any { return a.Invalidate(qa, 0, nil, 0) },
		"InvalidateMw":       func() any { return a.InvalidateMw(qa, 0, nil, 0) },
		"Write":              func() any { return a.Write(nil, 0, sge, 0, 0, 0) },
		"Read":               func() any { return a.Read(nil, 0, sge, 0, 0, 0) },
		"Send":               func() any { return a.Send(nil, 0, sge, 0) },
		"SendAndInvalidate":  func() any { return a.SendAndInvalidate(nil, 0, sge, 0, 0) },
		"Receive":            func() any { return a.Receive(nil, 0, sge) },
		"Flush":              func() any { return a.Flush(nil) },
		"CloseObject nil":    func() any { return a.CloseObject(nil, noop, 0) },
		"CloseObject nil MR": func() any { return a.CloseObject((*MR)(nil), noop, 0) },
	}
	for name, call := range calls {
		var got any
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", name, r)
				}
			}()
			got = call()
		}()
		switch v := got.(type) {
		case nil:
		case Status:
			require.True(t, v == StatusInvalidParameter || v == StatusInvalidHandle, "%s: %v", name, v)
		default:
			require.EqualValues(t, 0, v, name)
		}
	}
}

// ConnectQPs refuses a nil or closed QP, or one already connected, with an
// error that carries the status (STATUS_INVALID_PARAMETER for a nil QP,
// STATUS_INVALID_HANDLE for a closed one, STATUS_INVALID_DEVICE_STATE for a
// connected one).
func TestConnectQPsRefusesNilClosedAndConnectedQPsWithAStatus(t *testing.T) {
	p := newPair(t, DefaultSpec())
	st, qa := p.a.a.CreateQP(p.a.pd, p.a.cq, 1, 8, 8)
	require.Equal(t, StatusSuccess, st)
	st, qb := p.b.a.CreateQP(p.b.pd, p.b.cq, 2, 8, 8)
	require.Equal(t, StatusSuccess, st)
	status := func(err error) Status {
		var se *StatusError
		require.True(t, errors.As(err, &se), "%v", err)
		return se.Status
	}
	require.Equal(t, StatusInvalidParameter, status(ConnectQPs(nil, qb)))
	require.Equal(t, StatusSuccess, p.a.a.CloseObject(qa, nil, 0))
	require.Equal(t, StatusInvalidHandle, status(ConnectQPs(qa, qb)))
	require.False(t, qb.Connected(), "a refused connection changes nothing")
	st, qa2 := p.a.a.CreateQP(p.a.pd, p.a.cq, 3, 8, 8)
	require.Equal(t, StatusSuccess, st)
	require.NoError(t, ConnectQPs(qa2, qb))
	st, qa3 := p.a.a.CreateQP(p.a.pd, p.a.cq, 4, 8, 8)
	require.Equal(t, StatusSuccess, st)
	require.Equal(t, StatusInvalidDeviceState, status(ConnectQPs(qa3, qb)))
}

// Rule 57, 2.K: a SendAndInvalidate whose token dies (its MR closed) after
// the receiver checked it and while its bytes are placed completes the
// receive, the token dead, without stopping the simulator.
func TestSendAndInvalidateOfATokenClosedDuringItsPlacementCompletes(t *testing.T) {
	p := newPair(t, DefaultSpec())
	qa, qb := p.connect()
	st, qa2 := p.a.a.CreateQP(p.a.pd, p.a.cq, 3, 8, 8)
	require.Equal(t, StatusSuccess, st)
	qa2.Connect()
	fr := p.a.frmr(16, true)
	local, _ := p.b.register(srcVA, 4*pg, MRAllowLocalWrite)
	sink, _ := p.a.register(dstVA, 4*pg, MRAllowLocalWrite)
	require.Equal(t, StatusSuccess, p.a.a.FastRegister(qa2, 1, fr, []uint64{0x7000_0000}, 0, pg, 0x7000_0000, OpAllowRemoteWrite))
	p.run()
	require.Equal(t, StatusSuccess, p.a.one().Status)
	tok := p.a.a.GetRemoteTokenFromMr(fr)
	require.Equal(t, StatusSuccess, p.a.a.Receive(qa, 2, lsge(sink, dstVA, 4*pg)))
	require.Equal(t, StatusSuccess, p.b.a.SendAndInvalidate(qb, 3, lsge(local, srcVA, 4*pg), tok, 0))
	for qa.rqHead == 0 && p.env.Engine.Step() { // until the receiver has checked the token and taken the receive
	}
	require.Equal(t, StatusSuccess, p.a.a.CloseObject(fr, nil, 0))
	require.NotPanics(t, p.run)
	r := p.a.one()
	require.Equal(t, StatusSuccess, r.Status)
	require.Equal(t, OpReceiveAndInvalidate, r.Type)
	require.Equal(t, uint64(tok), r.TypeSpecific)
}
