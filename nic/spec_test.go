package nic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultSpecIsValidAndReportsNDKLimits(t *testing.T) {
	sp := DefaultSpec()
	require.NoError(t, sp.Validate())
	info := sp.Info()
	require.NoError(t, info.Validate())
	require.GreaterOrEqual(t, info.FRMRPageCount, uint32(FRMRPageCountMin))
	require.Equal(t, uint16(1), info.VersionMajor)
	require.Equal(t, uint16(2), info.VersionMinor)
}

func TestSpecValidateNamesFieldValueAndRange(t *testing.T) {
	for _, c := range []struct {
		mut  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.FRMRPageCount = 8 }, "frmr_page_count = 8, want 16..2^20"},
		{func(s *Spec) { s.WQEBytes = 32 }, "wqe_bytes = 32"},
		{func(s *Spec) { s.Validation.LatencyCycles = 0 }, "validate.latency_cycles = 0, want 1..100000"},
		{func(s *Spec) { s.ExecEngines = 0 }, "exec_engines = 0, want 1..64"},
		{func(s *Spec) { s.ClockPeriodPS = 500 }, "tpt.clock_period_ps = 1000"},
		{func(s *Spec) { s.RemoteAccessErrorStatus = StatusUnsuccessful }, "remote_access_error_status = STATUS_UNSUCCESSFUL"},
		{func(s *Spec) { s.TPT.WriteOpsMax = 0 }, "write_ops_max"},
		{func(s *Spec) { s.RegisterFirmwareNS = 0 }, "register_firmware_ns = 0, want 1..1e9"},
		{func(s *Spec) { s.DeregisterFirmwareNS = 0 }, "deregister_firmware_ns = 0"},
		{func(s *Spec) { s.FirmwareQueueDepth = 0 }, "firmware_queue_depth = 0"},
		{func(s *Spec) { s.FirmwareCommandBytes = 0 }, "firmware_command_bytes = 0"},
		{func(s *Spec) { s.MaxRegistrationSizeBytes = 1 }, "max_registration_size_bytes = 1"},
		{func(s *Spec) { s.HostMemoryPagesMax = 0 }, "host_memory_pages_max = 0"},
	} {
		sp := DefaultSpec()
		c.mut(&sp)
		err := sp.Validate()
		require.Error(t, err)
		require.True(t, strings.Contains(err.Error(), c.want), "%v does not mention %q", err, c.want)
	}
}

// Statistics: PCIe bytes per operation by purpose for one lone FastRegister
// (WQE-by-MMIO, inline list: 2 basic blocks) and one with a DMA-fetched
// list (doorbell mode).
func TestPCIeBytesPerOperationByPurpose(t *testing.T) {
	h, qp, mr := newFR(t, 8)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(3), 0, 3*pg, 0, 0))
	h.run()
	o := &h.a.Stats.Ops[kindFastRegister]
	require.Equal(t, [purposes]uint64{0, 128, 0, 64, 32, 64}, o.PCIeBytes)

	sp := DefaultSpec()
	sp.WQEByMMIO = false
	sp.InlinePageListEntriesMax = 0
	h = newHarness(t, sp)
	qp = h.qp(8)
	mr = h.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(3), 0, 3*pg, 0, 0))
	h.run()
	o = &h.a.Stats.Ops[kindFastRegister]
	require.Equal(t, [purposes]uint64{8, 64, 24, 64, 32, 64}, o.PCIeBytes)
	require.Equal(t, uint64(1), h.a.Stats.Doorbells)
	require.Equal(t, uint64(1), h.a.Stats.PageListFetches)

	names := map[string]string{}
	for _, s := range h.reg.Snapshot() {
		names[s.Name] = s.Unit
	}
	for _, n := range []string{"NIC.FastRegister.Latency.PostToCQEPS", "NIC.FastRegister.Latency.PostToDoorbellPS",
		"NIC.FastRegister.Latency.PostToFetchedPS", "NIC.FastRegister.Latency.PostToExecutedPS",
		"NIC.FastRegister.Throughput", "NIC.PCIe.Bytes.PageList", "NIC.Doorbell.Doorbells",
		"NIC.Stage.PageList.Occupancy", "NIC.Stage.Validate.StallPS", "NIC.TPT.MTTCache.ICMWriteBytes"} {
		require.Contains(t, names, n)
	}
}

func TestWireSpecValidate(t *testing.T) {
	require.NoError(t, DefaultWireSpec().Validate())
	ws := DefaultWireSpec()
	ws.GbitPerS = 0
	require.ErrorContains(t, ws.Validate(), "gbit_per_s = 0")
}
