package nic

import "fmt"

// OpType is NDK_OPERATION_TYPE (docs/ndk.md 1.4). NdkSendAndInvalidate completes
// with OpSend; ReceiveAndInvalidate is 0x8001 so Type&OpReceive is set for
// both receive kinds.
type OpType uint32

// NDK_OPERATION_TYPE values.
const (
	OpReceive              OpType = 1
	OpSend                 OpType = 2
	OpFastRegister         OpType = 4
	OpBind                 OpType = 8
	OpInvalidate           OpType = 16
	OpRead                 OpType = 32
	OpWrite                OpType = 64
	OpReceiveAndInvalidate OpType = 0x8001
)

var opTypeNames = map[OpType]string{
	OpReceive: "Receive", OpSend: "Send", OpFastRegister: "FastRegister", OpBind: "Bind",
	OpInvalidate: "Invalidate", OpRead: "Read", OpWrite: "Write", OpReceiveAndInvalidate: "ReceiveAndInvalidate",
}

// String returns the name without the NdkOperationType prefix.
func (o OpType) String() string {
	if n, ok := opTypeNames[o]; ok {
		return n
	}
	return fmt.Sprintf("OpType(%d)", uint32(o))
}

// ParseOpType accepts "FastRegister" or "NdkOperationTypeFastRegister".
func ParseOpType(s string) (OpType, bool) {
	for _, o := range []OpType{OpReceive, OpSend, OpFastRegister, OpBind, OpInvalidate, OpRead, OpWrite, OpReceiveAndInvalidate} {
		if n := o.String(); s == n || s == "NdkOperationType"+n {
			return o, true
		}
	}
	return 0, false
}

// ObjectType is NDK_OBJECT_TYPE (docs/ndk.md 1.4).
type ObjectType uint32

// NDK_OBJECT_TYPE values.
const (
	ObjectUndefined      ObjectType = 0
	ObjectAdapter        ObjectType = 1
	ObjectQP             ObjectType = 2
	ObjectCQ             ObjectType = 3
	ObjectMR             ObjectType = 4
	ObjectMW             ObjectType = 5
	ObjectPD             ObjectType = 6
	ObjectSharedEndpoint ObjectType = 7
	ObjectConnector      ObjectType = 8
	ObjectListener       ObjectType = 9
	ObjectSRQ            ObjectType = 10
)

// RDMATechnology is NDK_RDMA_TECHNOLOGY.
type RDMATechnology uint32

// NDK_RDMA_TECHNOLOGY values.
const (
	RDMAUndefined  RDMATechnology = 0
	RDMAiWarp      RDMATechnology = 1
	RDMAInfiniBand RDMATechnology = 2
	RDMARoCE       RDMATechnology = 3
	RDMARoCEv2     RDMATechnology = 4
)

// AdapterFlags are NDK_ADAPTER_FLAG_* (docs/ndk.md 1.3).
type AdapterFlags uint32

// NDK_ADAPTER_FLAG_* values.
const (
	AdapterInOrderDMASupported              AdapterFlags = 0x1
	AdapterRDMAReadSinkNotRequired          AdapterFlags = 0x2
	AdapterCQInterruptModerationSupported   AdapterFlags = 0x4
	AdapterMultiEngineSupported             AdapterFlags = 0x8
	AdapterRDMAReadLocalInvalidateSupported AdapterFlags = 0x10
	AdapterCQResizeSupported                AdapterFlags = 0x100
	AdapterLoopbackConnectionsSupported     AdapterFlags = 0x10000
)

// PageSizeBytes is PAGE_SIZE on x86/x64 hosts: every adapter page is this
// size (docs/ndk.md 1.4).
const PageSizeBytes = 4096

// FRMRPageCountMin is the smallest FRMRPageCount an adapter may report
// (docs/ndk.md 1.3: >= 16 mandatory).
const FRMRPageCountMin = 16

// AdapterInfo is NDK_ADAPTER_INFO, field for field in header order
// (docs/ndk.md 1.3).
type AdapterInfo struct {
	VersionMajor, VersionMinor uint16
	VendorID, DeviceID         uint32
	MaxRegistrationSizeBytes   uint64
	MaxWindowSizeBytes         uint64
	FRMRPageCount              uint32
	MaxInitiatorRequestSge     uint32
	MaxReceiveRequestSge       uint32
	MaxReadRequestSge          uint32
	MaxTransferLengthBytes     uint32
	MaxInlineDataSizeBytes     uint32
	MaxInboundReadLimit        uint32
	MaxOutboundReadLimit       uint32
	MaxReceiveQueueDepth       uint32
	MaxInitiatorQueueDepth     uint32
	MaxSrqDepth                uint32
	MaxCqDepth                 uint32
	LargeRequestThresholdBytes uint32
	MaxCallerDataBytes         uint32
	MaxCalleeDataBytes         uint32
	AdapterFlags               AdapterFlags
	RdmaTechnology             RDMATechnology
}

// Validate checks the limits the NDK requires of any adapter.
func (a AdapterInfo) Validate() error {
	switch {
	case a.FRMRPageCount < FRMRPageCountMin:
		return fmt.Errorf("adapter FRMRPageCount %d is below the NDK minimum of %d", a.FRMRPageCount, FRMRPageCountMin)
	case a.MaxRegistrationSizeBytes == 0:
		return fmt.Errorf("adapter MaxRegistrationSizeBytes must be positive")
	case a.MaxWindowSizeBytes == 0:
		return fmt.Errorf("adapter MaxWindowSizeBytes must be positive")
	case a.MaxInitiatorQueueDepth == 0 || a.MaxReceiveQueueDepth == 0 || a.MaxCqDepth == 0:
		return fmt.Errorf("adapter queue depths must be positive")
	case a.RdmaTechnology > RDMARoCEv2:
		return fmt.Errorf("adapter RdmaTechnology %d is not a NDK_RDMA_TECHNOLOGY value (0..4)", a.RdmaTechnology)
	}
	return nil
}

// Result is NDK_RESULT_EX (docs/ndk.md 1.4). BytesTransferred is meaningful only
// for receives; TypeSpecific holds the invalidated token only for
// ReceiveAndInvalidate.
type Result struct {
	Status           Status
	BytesTransferred uint32
	QPContext        uint64
	RequestContext   uint64
	Type             OpType
	TypeSpecific     uint64
}
