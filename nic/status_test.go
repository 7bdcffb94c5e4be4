package nic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStatusValuesMatchNtstatusHeader(t *testing.T) {
	// docs/ndk.md 1.5 (source S: ntstatus.h).
	for _, c := range []struct {
		s    Status
		v    uint32
		name string
	}{
		{StatusSuccess, 0x0, "STATUS_SUCCESS"},
		{StatusPending, 0x103, "STATUS_PENDING"},
		{StatusDeviceBusy, 0x80000011, "STATUS_DEVICE_BUSY"},
		{StatusNoMoreEntries, 0x8000001A, "STATUS_NO_MORE_ENTRIES"},
		{StatusAccessViolation, 0xC0000005, "STATUS_ACCESS_VIOLATION"},
		{StatusInvalidParameter, 0xC000000D, "STATUS_INVALID_PARAMETER"},
		{StatusInvalidDeviceRequest, 0xC0000010, "STATUS_INVALID_DEVICE_REQUEST"},
		{StatusInsufficientResources, 0xC000009A, "STATUS_INSUFFICIENT_RESOURCES"},
		{StatusCancelled, 0xC0000120, "STATUS_CANCELLED"},
		{StatusRemoteResources, 0xC000013D, "STATUS_REMOTE_RESOURCES"},
		{StatusInvalidDeviceState, 0xC0000184, "STATUS_INVALID_DEVICE_STATE"},
		{StatusConnectionInvalid, 0xC000023A, "STATUS_CONNECTION_INVALID"},
		{StatusImplementationLimit, 0xC000042B, "STATUS_IMPLEMENTATION_LIMIT"},
	} {
		require.Equal(t, c.v, uint32(c.s), c.name)
		require.Equal(t, c.name, c.s.String())
		got, ok := ParseStatus(c.name)
		require.True(t, ok, c.name)
		require.Equal(t, c.s, got)
	}
	p10, err := StatusInvalidParameterN(10)
	require.NoError(t, err)
	require.Equal(t, Status(0xC00000F8), p10)
	require.Equal(t, "STATUS_INVALID_PARAMETER_10", p10.String())
	_, err = StatusInvalidParameterN(11)
	require.Error(t, err)
	require.Equal(t, "NTSTATUS(0x12345678)", Status(0x12345678).String())
	_, ok := ParseStatus("STATUS_NOT_A_THING")
	require.False(t, ok)
}

func TestNTSuccessIsTrueForPendingAndFalseForWarnings(t *testing.T) {
	require.True(t, StatusSuccess.Success())
	require.True(t, StatusPending.Success(), "STATUS_PENDING is NT_SUCCESS")
	require.False(t, StatusDeviceBusy.Success(), "warnings are not NT_SUCCESS")
	require.False(t, StatusAccessViolation.Success())
	require.Equal(t, 2, StatusDeviceBusy.Severity())
	require.Equal(t, 3, StatusCancelled.Severity())
}
