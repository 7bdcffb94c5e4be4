package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPCIeCSVHasRequiredColumns(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"pcie", "--ideal", "--sizes", "64,1024", "--dir", "all", "--format", "csv"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 7)
	hdr := strings.Split(lines[0], ",")
	for _, c := range []string{"direction", "transfer_bytes", "effective_gbps", "read_latency_ns_mean", "read_latency_ns_p99", "model_gbps", "error_pct"} {
		require.Contains(t, hdr, c)
	}
	require.True(t, strings.HasPrefix(lines[1], "read,64,"))
	require.True(t, strings.HasPrefix(lines[6], "rdwr,1024,"))
}

func TestPCIeTableIsDeterministic(t *testing.T) {
	run := func() string {
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch([]string{"pcie", "--gen", "4", "--lanes", "16", "--sizes", "64,256", "--dir", "read"}, &out, &errb), errb.String())
		return out.String()
	}
	a := run()
	require.Equal(t, a, run())
	require.Contains(t, a, "effective_gbps")
}

func TestPCIeBadFlagsExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gen", "7"}, "--gen 7 is out of range 1..5"},
		{[]string{"--lanes", "3"}, "--lanes 3"},
		{[]string{"--mps", "100"}, "--mps 100"},
		{[]string{"--mrrs", "8192"}, "--mrrs 8192"},
		{[]string{"--dir", "up"}, "--dir \"up\""},
		{[]string{"--sizes", "64,x"}, "--sizes"},
		{[]string{"--sizes", "0"}, "--sizes"},
		{[]string{"--format", "json"}, "--format"},
		{[]string{"--tags", "0"}, "--tags 0"},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"--preset", "x9"}, `--preset "x9" is not a preset`},
	} {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"pcie"}, c.args...), &out, &errb)
		require.Equal(t, 2, code, c.args)
		require.Contains(t, errb.String(), c.want, c.args)
	}
}

// TestPCIeUnloadedReadFitMatchesE5: for reads of one MRd (8..512 B), the
// latency fit the table prints for one outstanding read lies near the fit of
// the measured E5-2620v3 medians over the same sizes (docs/sources.md 1.1),
// which it prints next to it; --ideal and CSV print none. (Longer reads are
// several MRds answered in parallel and fall below the table: a known miss,
// docs/DEVIATIONS.md.)
func TestPCIeUnloadedReadFitMatchesE5(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"pcie", "--dir", "read", "--sizes", "8,64,256,512"}, &out, &errb), errb.String())
	var fixed, perByte, r2, mFixed, mPerByte float64
	line := out.String()[strings.Index(out.String(), "unloaded DMA read latency"):]
	_, err := fmt.Sscanf(line[strings.Index(line, "): ")+3:], "%f ns + %f ns/B (R^2 %f)", &fixed, &perByte, &r2)
	require.NoError(t, err, line)
	_, err = fmt.Sscanf(line[strings.Index(line, "same sizes: ")+12:], "%f ns + %f ns/B", &mFixed, &mPerByte)
	require.NoError(t, err, line)
	require.InDelta(t, 529.0, mFixed, 0.05, "least squares of 533, 546, 626, 706 ns")
	require.InDelta(t, mFixed, fixed, 10)
	require.InDelta(t, mPerByte, perByte, 0.03)
	require.Greater(t, r2, 0.98)
	for _, args := range [][]string{
		{"pcie", "--dir", "read", "--sizes", "64,256", "--ideal"},
		{"pcie", "--dir", "read", "--sizes", "64,256", "--format", "csv"},
		{"pcie", "--dir", "write", "--sizes", "64,256"},
	} {
		out.Reset()
		require.Equal(t, 0, dispatch(args, &out, &errb))
		require.NotContains(t, out.String(), "unloaded DMA read latency", "%v", args)
	}
}

// TestPCIeRowNamesTheBindingResource: each row names its busiest meter. On
// the default preset (the NFP-6000 engine) 64 B writes are bound by the
// engine's write channel and 4 KiB writes by the upstream link; with the
// RNIC engine of generic (1 GHz, 2 channels) the link binds both.
func TestPCIeRowNamesTheBindingResource(t *testing.T) {
	bound := func(args ...string) []string {
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch(append([]string{"pcie", "--dir", "write", "--sizes", "64,4096", "--format", "csv"}, args...), &out, &errb), errb.String())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		require.Equal(t, "bound_by", strings.Split(lines[0], ",")[13])
		var b []string
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			b = append(b, f[13])
			u, err := strconv.ParseFloat(f[14], 64)
			require.NoError(t, err)
			require.InDelta(t, 1, u, 0.01, l)
		}
		return b
	}
	require.Equal(t, []string{"NIC.DMA.WriteChannels", "NIC.PCIe.Up"}, bound())
	require.Equal(t, []string{"NIC.PCIe.Up", "NIC.PCIe.Up"}, bound("--preset", "generic"))
}
