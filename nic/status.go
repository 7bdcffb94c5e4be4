package nic

import "fmt"

// Status is an NTSTATUS value, exactly as ntstatus.h defines it
// (docs/ndk.md section 1.5).
type Status uint32

// NTSTATUS values used by the NDK provider (docs/ndk.md 1.5, source S).
const (
	StatusSuccess                 Status = 0x00000000
	StatusTimeout                 Status = 0x00000102
	StatusPending                 Status = 0x00000103
	StatusBufferOverflow          Status = 0x80000005
	StatusDeviceBusy              Status = 0x80000011
	StatusNoMoreEntries           Status = 0x8000001A
	StatusUnsuccessful            Status = 0xC0000001
	StatusAccessViolation         Status = 0xC0000005
	StatusInvalidHandle           Status = 0xC0000008
	StatusInvalidParameter        Status = 0xC000000D
	StatusInvalidDeviceRequest    Status = 0xC0000010
	StatusNoMemory                Status = 0xC0000017
	StatusBufferTooSmall          Status = 0xC0000023
	StatusInvalidParameterMix     Status = 0xC0000030
	StatusDataOverrun             Status = 0xC000003C
	StatusInsufficientResources   Status = 0xC000009A
	StatusDeviceNotReady          Status = 0xC00000A3
	StatusIOTimeout               Status = 0xC00000B5
	StatusNotSupported            Status = 0xC00000BB
	StatusInternalError           Status = 0xC00000E5
	StatusCancelled               Status = 0xC0000120
	StatusRemoteResources         Status = 0xC000013D
	StatusInvalidAddress          Status = 0xC0000141
	StatusInvalidDeviceState      Status = 0xC0000184
	StatusInvalidBufferSize       Status = 0xC0000206
	StatusConnectionDisconnected  Status = 0xC000020C
	StatusConnectionReset         Status = 0xC000020D
	StatusConnectionRefused       Status = 0xC0000236
	StatusConnectionInvalid       Status = 0xC000023A
	StatusConnectionActive        Status = 0xC000023B
	StatusHostUnreachable         Status = 0xC000023D
	StatusConnectionAborted       Status = 0xC0000241
	StatusDeviceRemoved           Status = 0xC00002B6
	StatusImplementationLimit     Status = 0xC000042B
	statusInvalidParameter1       Status = 0xC00000EF // ..._10 is 0xC00000F8
	statusInvalidParameterNumbers        = 10
)

// StatusInvalidParameterN returns STATUS_INVALID_PARAMETER_n for n in 1..10.
func StatusInvalidParameterN(n int) (Status, error) {
	if n < 1 || n > statusInvalidParameterNumbers {
		return 0, fmt.Errorf("nic: STATUS_INVALID_PARAMETER_%d does not exist (1..10)", n)
	}
	return statusInvalidParameter1 + Status(n-1), nil
}

var statusNames = map[Status]string{
	StatusSuccess:                "STATUS_SUCCESS",
	StatusTimeout:                "STATUS_TIMEOUT",
	StatusPending:                "STATUS_PENDING",
	StatusBufferOverflow:         "STATUS_BUFFER_OVERFLOW",
	StatusDeviceBusy:             "STATUS_DEVICE_BUSY",
	StatusNoMoreEntries:          "STATUS_NO_MORE_ENTRIES",
	StatusUnsuccessful:           "STATUS_UNSUCCESSFUL",
	StatusAccessViolation:        "STATUS_ACCESS_VIOLATION",
	StatusInvalidHandle:          "STATUS_INVALID_HANDLE",
	StatusInvalidParameter:       "STATUS_INVALID_PARAMETER",
	StatusInvalidDeviceRequest:   "STATUS_INVALID_DEVICE_REQUEST",
	StatusNoMemory:               "STATUS_NO_MEMORY",
	StatusBufferTooSmall:         "STATUS_BUFFER_TOO_SMALL",
	StatusInvalidParameterMix:    "STATUS_INVALID_PARAMETER_MIX",
	StatusDataOverrun:            "STATUS_DATA_OVERRUN",
	StatusInsufficientResources:  "STATUS_INSUFFICIENT_RESOURCES",
	StatusDeviceNotReady:         "STATUS_DEVICE_NOT_READY",
	StatusIOTimeout:              "STATUS_IO_TIMEOUT",
	StatusNotSupported:           "STATUS_NOT_SUPPORTED",
	StatusInternalError:          "STATUS_INTERNAL_ERROR",
	StatusCancelled:              "STATUS_CANCELLED",
	StatusRemoteResources:        "STATUS_REMOTE_RESOURCES",
	StatusInvalidAddress:         "STATUS_INVALID_ADDRESS",
	StatusInvalidDeviceState:     "STATUS_INVALID_DEVICE_STATE",
	StatusInvalidBufferSize:      "STATUS_INVALID_BUFFER_SIZE",
	StatusConnectionDisconnected: "STATUS_CONNECTION_DISCONNECTED",
	StatusConnectionReset:        "STATUS_CONNECTION_RESET",
	StatusConnectionRefused:      "STATUS_CONNECTION_REFUSED",
	StatusConnectionInvalid:      "STATUS_CONNECTION_INVALID",
	StatusConnectionActive:       "STATUS_CONNECTION_ACTIVE",
	StatusHostUnreachable:        "STATUS_HOST_UNREACHABLE",
	StatusConnectionAborted:      "STATUS_CONNECTION_ABORTED",
	StatusDeviceRemoved:          "STATUS_DEVICE_REMOVED",
	StatusImplementationLimit:    "STATUS_IMPLEMENTATION_LIMIT",
}

// String returns the status's ntstatus.h name, or its hex value if it has none.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	if s >= statusInvalidParameter1 && s < statusInvalidParameter1+statusInvalidParameterNumbers {
		return fmt.Sprintf("STATUS_INVALID_PARAMETER_%d", s-statusInvalidParameter1+1)
	}
	return fmt.Sprintf("NTSTATUS(0x%08X)", uint32(s))
}

// ParseStatus returns the status with the given ntstatus.h name
// (for example "STATUS_ACCESS_VIOLATION").
func ParseStatus(name string) (Status, bool) {
	for s, n := range statusNames {
		if n == name {
			return s, true
		}
	}
	var k int
	if _, err := fmt.Sscanf(name, "STATUS_INVALID_PARAMETER_%d", &k); err == nil {
		if s, err := StatusInvalidParameterN(k); err == nil && s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// Success is NT_SUCCESS: true for success and informational values
// (STATUS_PENDING included), false for warnings and errors.
func (s Status) Success() bool { return int32(s) >= 0 }

// Severity is the top two bits: 0 success, 1 informational, 2 warning, 3 error.
func (s Status) Severity() int { return int(s >> 30) }
