package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
)

func TestMRFlagValuesMatchHeader(t *testing.T) {
	// docs/ndk.md 1.1 and 3.1: REMOTE_WRITE is 0x5 (0x4 | LOCAL_WRITE).
	require.Equal(t, MRFlags(0x1), MRAllowLocalWrite)
	require.Equal(t, MRFlags(0x2), MRAllowRemoteRead)
	require.Equal(t, MRFlags(0x5), MRAllowRemoteWrite)
	require.Equal(t, MRFlags(0x8), MRRDMAReadSink)
	require.True(t, MRAllowRemoteWrite.LocalWrite(), "remote write implies local write")
	require.Equal(t, "ALLOW_REMOTE_WRITE|ALLOW_REMOTE_READ", (MRAllowRemoteWrite | MRAllowRemoteRead).String())
	require.Equal(t, "ALLOW_LOCAL_READ", MRAllowLocalRead.String())
}

func TestMRRemoteWriteWithoutLocalWriteIsInvalidParameter(t *testing.T) {
	// docs/ndk.md 5.2: MR flags 0x4 without 0x1.
	st, err := MRFlags(0x4).Validate()
	require.Equal(t, StatusInvalidParameter, st)
	require.ErrorContains(t, err, "needs local write")
	st, err = MRAllowRemoteWrite.Validate()
	require.Equal(t, StatusSuccess, st)
	require.NoError(t, err)
}

func TestMRUnknownFlagBitsAreInvalidParameter(t *testing.T) {
	// docs/ndk.md 5.2.
	st, err := MRFlags(0x10).Validate()
	require.Equal(t, StatusInvalidParameter, st)
	require.ErrorContains(t, err, "unknown bits 0x10")
}

func TestOpFlagValuesMatchHeader(t *testing.T) {
	// docs/ndk.md 1.2.
	require.Equal(t, OpFlags(0x030), OpAllowRemoteWrite)
	require.Equal(t, OpFlags(0x100), OpRDMAReadLocalInvalidate, "the header's 0x100, not the NdkRead page's 0x200 (docs/ndk.md 3.7)")
	require.Equal(t, OpFlags(0x200), OpDefer)
	require.Equal(t, "ALLOW_REMOTE_WRITE|SILENT_SUCCESS", (OpAllowRemoteWrite | OpSilentSuccess).String())
}

func TestOpFlagsAcceptedPerOperation(t *testing.T) {
	// docs/ndk.md 1.2 accepted-flag lists; unknown bits are INVALID_PARAMETER (5.2).
	for _, c := range []struct {
		op OpType
		f  OpFlags
		ok bool
	}{
		{OpFastRegister, OpAllowRemoteWrite | OpAllowRemoteRead | OpDefer | OpSilentSuccess | OpReadFence, true},
		{OpFastRegister, OpRDMAReadSink, true}, // docs/ndk.md 3.6
		{OpFastRegister, OpInline, false},
		{OpBind, OpAllowRemoteRead | OpAllowRemoteWrite | OpDefer, true},
		{OpBind, OpRDMAReadSink, false},
		{OpInvalidate, OpSilentSuccess | OpReadFence | OpDefer, true},
		{OpInvalidate, OpAllowRemoteRead, false},
		{OpSend, OpInline | OpSendAndSolicitEvent, true},
		{OpRead, OpRDMAReadLocalInvalidate, true},
		{OpWrite, OpInline, false},
		{OpReceive, OpDefer, false}, // DEFER is never valid on Receive
	} {
		st, err := ValidateOpFlags(c.op, c.f)
		if c.ok {
			require.Equal(t, StatusSuccess, st, "%v %v: %v", c.op, c.f, err)
		} else {
			require.Equal(t, StatusInvalidParameter, st, "%v %v", c.op, c.f)
			require.Error(t, err)
		}
	}
}

func TestOpFlagsValidAgreesWithValidateOpFlags(t *testing.T) {
	// The check every post makes (checkWR) accepts exactly what
	// ValidateOpFlags accepts: every operation, with one that takes no
	// flags, and every combination of the ten flag bits and one unknown.
	for _, op := range []OpType{OpReceive, OpSend, OpFastRegister, OpBind, OpInvalidate, OpRead, OpWrite, OpReceiveAndInvalidate} {
		for f := OpFlags(0); f < 1<<(opFlagCount+1); f++ {
			st, _ := ValidateOpFlags(op, f)
			require.Equal(t, st == StatusSuccess, opFlagsValid(op, f), "%v %v", op, f)
		}
	}
}

func TestOpRemoteWriteWithoutLocalWriteIsInvalidParameter(t *testing.T) {
	// docs/ndk.md 5.2: operation flags 0x20 without 0x10.
	st, err := ValidateOpFlags(OpBind, 0x20)
	require.Equal(t, StatusInvalidParameter, st)
	require.ErrorContains(t, err, "needs local write")
}

func TestOperationTypeValues(t *testing.T) {
	// docs/ndk.md 1.4.
	require.Equal(t, OpType(0x8001), OpReceiveAndInvalidate)
	require.NotZero(t, OpReceiveAndInvalidate&OpReceive, "Type & Receive is set for both receive kinds")
	o, ok := ParseOpType("NdkOperationTypeBind")
	require.True(t, ok)
	require.Equal(t, OpBind, o)
	_, ok = ParseOpType("Frobnicate")
	require.False(t, ok)
}

func TestAdapterInfoRequiresFRMRPageCountAtLeast16(t *testing.T) {
	a := AdapterInfo{FRMRPageCount: 15, MaxRegistrationSizeBytes: 1, MaxWindowSizeBytes: 1,
		MaxInitiatorQueueDepth: 1, MaxReceiveQueueDepth: 1, MaxCqDepth: 1}
	require.ErrorContains(t, a.Validate(), "minimum of 16")
	a.FRMRPageCount = 16
	require.NoError(t, a.Validate())
}

func TestNDKFlagsMapToKeyTableRights(t *testing.T) {
	// docs/ndk.md 1.1, 1.2, 3.1: remote write is 0x5 / 0x30 and implies local write;
	// local read is implicit; RDMA_READ_SINK grants nothing by itself.
	require.Equal(t, mtt.RightLocalWrite|mtt.RightRemoteRead|mtt.RightRemoteWrite, (MRAllowRemoteWrite | MRAllowRemoteRead).Rights())
	require.Equal(t, mtt.Rights(0), MRRDMAReadSink.Rights())
	require.Equal(t, mtt.RightLocalWrite, MRAllowLocalWrite.Rights())
	require.Equal(t, mtt.RightLocalWrite|mtt.RightRemoteRead|mtt.RightRemoteWrite, (OpAllowRemoteWrite | OpAllowRemoteRead | OpSilentSuccess).Rights())
	require.Equal(t, mtt.RightRemoteRead, OpAllowRemoteRead.Rights())
}
