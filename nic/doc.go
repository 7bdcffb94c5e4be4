// Package nic is the NDK (NDKPI) provider and the NIC hardware behind it.
//
// This package currently holds the interface's vocabulary, exactly as the NDK
// header defines it (../shared/spec/NDK.md section 1): NTSTATUS values with
// their names (Status), NDK_MR_FLAG_* and NDK_OP_FLAG_* bit sets with the
// per-operation accepted-flag tables and the project's flag decisions
// (NDK.md 5.2), NDK_OPERATION_TYPE, NDK_OBJECT_TYPE, NDK_ADAPTER_INFO and
// NDK_RESULT_EX.
//
// The provider calls (NdkCreateMr, NdkRegisterMr, NdkFastRegister, NdkBind,
// NdkInvalidate, ...) and the send-queue pipeline, firmware command path and
// responder data path that time them build on sim, pcie and mtt.
package nic
