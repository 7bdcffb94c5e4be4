package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

func TestDefaultAndIdealSpecsValidate(t *testing.T) {
	require.NoError(t, DefaultSpec().Validate())
	require.NoError(t, IdealSpec(DefaultSpec()).Validate())
}

// TestSpecValidateRejectsOutOfRange: every bad field is named with its
// value and the allowed range.
func TestSpecValidateRejectsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Spec)
		want string
	}{
		{"gen", func(s *Spec) { s.Gen = 6 }, "Gen = 6 is out of range 1..5"},
		{"lanes", func(s *Spec) { s.Lanes = 3 }, "Lanes = 3 must be one of 1, 2, 4, 8, 16"},
		{"mps", func(s *Spec) { s.MPSBytes = 100 }, "MPSBytes = 100"},
		{"mrrs", func(s *Spec) { s.MRRSBytes = 8192 }, "MRRSBytes = 8192"},
		{"rcb", func(s *Spec) { s.RCBBytes = 32 }, "RCBBytes = 32 must be 64 or 128"},
		{"split", func(s *Spec) { s.CompletionSplit = "x" }, "CompletionSplit"},
		{"tags", func(s *Spec) { s.TagsMax = 0 }, "TagsMax = 0 is out of range"},
		{"queue", func(s *Spec) { s.DMAReadQueueDepth = -1 }, "DMAReadQueueDepth = -1"},
		{"channels", func(s *Spec) { s.DMAWriteChannels = 0 }, "DMAWriteChannels = 0 is out of range 1..1024"},
		{"spread", func(s *Spec) { s.HostReadSpreadMaxNS = 1 }, "HostReadSpreadMaxNS = 1 is below HostReadSpreadP999NS"},
		{"iotlb", func(s *Spec) { s.IOMMUPageBytes = 1000 }, "IOMMUPageBytes = 1000"},
		{"credits", func(s *Spec) { s.HostPHCredits = -1 }, "HostPHCredits = -1"},
		{"pd below mps", func(s *Spec) { s.HostPDCredits = 8 }, "HostPDCredits = 8 is below 16"},
		{"latency", func(s *Spec) { s.HostReadLatencyFixedNS = -5 }, "HostReadLatencyFixedNS = -5"},
		{"nan", func(s *Spec) { s.LinkLatencyNS = nan() }, "LinkLatencyNS"},
		{"cycles", func(s *Spec) { s.ReadRequestCycles = 1 << 30 }, "ReadRequestCycles"},
		{"fraction", func(s *Spec) { s.HostLLCMissFraction = 1.5 }, "HostLLCMissFraction = 1.5 is out of range 0..1"},
	} {
		s := DefaultSpec()
		c.mod(&s)
		err := s.Validate()
		require.Error(t, err, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
		_, err = New("x", s, sim.NewEnv(1), rnicClock)
		require.Error(t, err, c.name)
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestByteRateExact(t *testing.T) {
	// gen3 x8: 130000/1024 ps per byte; gen5 x16: 1040000/65536.
	r := ByteRate(3, 8)
	require.InDelta(t, 126.953125, r.PSPerByte(), 1e-9)
	require.InDelta(t, 15.869140625, ByteRate(5, 16).PSPerByte(), 1e-9)
	require.InDelta(t, 4000.0, ByteRate(1, 1).PSPerByte(), 1e-9)
	require.Equal(t, uint64(203), DLLPIntervalBytes(4, 8, 256))
	require.Equal(t, uint64(144), DLLPIntervalBytes(5, 16, 128))
	require.Equal(t, uint64(237), DLLPIntervalBytes(1, 1, 128))
}

func TestRegisterNamesEveryStat(t *testing.T) {
	env := sim.NewEnv(1)
	l, err := New("NIC[0].PCIe", DefaultSpec(), env, rnicClock)
	require.NoError(t, err)
	r := sim.NewRegistry()
	require.NoError(t, l.Register(r))
	names := map[string]bool{}
	for _, s := range r.Snapshot() {
		names[s.Name] = true
	}
	for _, n := range []string{"NIC[0].PCIe.Up.TLPs", "NIC[0].PCIe.Down.Utilization", "NIC[0].PCIe.DMA.ReadLatency", "NIC[0].PCIe.DMA.TagStalls", "NIC[0].PCIe.Up.CreditStalls"} {
		require.True(t, names[n], n)
	}
}
