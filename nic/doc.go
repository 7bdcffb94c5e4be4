// Package nic will hold the NDK (NDKPI) provider and the NIC hardware behind it:
// the Go API in the shape of NdkCreateMr, NdkRegisterMr, NdkFastRegister,
// NdkBind, NdkInvalidate and their neighbours, and the send-queue pipeline
// (doorbells, WQE fetch, execution stages, completions) and firmware command
// path that give each call its timing. It builds on sim, pcie and mtt; the
// rules it follows are in ../shared/spec/NDK.md.
package nic
