package traffic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/results"
)

func rdmaGen(t *testing.T, src string, sets ...string) results.GenResult {
	t.Helper()
	r := runSrc(t, src, sets...)
	require.Len(t, r.Points, 1)
	return r.Points[0].Generators[0]
}

// A 64 B RDMA Write with one outstanding costs the NIC's own path plus the
// wire round trip (measured as a zero-length Write, which moves no data and
// makes no DMA), the initiator's 64 B PCIe read of the payload, the
// responder's 64 B PCIe write and the payload's serialisation on the wire.
func TestRDMAWrite64BLatencyIsWireRoundTripPlusPCIe(t *testing.T) {
	const run = "run: {warmup_us: 5, duration_us: 100}\n"
	zero := rdmaGen(t, run+"generators: [{name: w, kind: rdma_write, size_bytes: 0}]\n")
	w64 := rdmaGen(t, run+"generators: [{name: w, kind: rdma_write, size_bytes: 64}]\n")
	rd := rdmaGen(t, run+"generators: [{name: rd, kind: dma_read, size_bytes: 64}]\n")
	wr := rdmaGen(t, run+"generators: [{name: wr, kind: dma_write, size_bytes: 64}]\n")
	require.Zero(t, w64.Failed)
	ws := nic.DefaultWireSpec()
	psPerByte := 8000.0 / float64(ws.GbitPerS)
	wireRTT := 2*float64(ws.LatencyNS) + float64(2*ws.HeaderBytes+2*ws.FramingBytes+16+4)*psPerByte/1e3 // request + ACK frames
	ser := 64 * psPerByte / 1e3
	want := zero.LatencyNS.P50 + rd.LatencyNS.P50 + wr.LatencyNS.P50 + ser
	t.Logf("64 B write p50 %.1f ns; expected %.1f = zero-length write %.1f (of which wire round trip %.1f, NIC path %.1f) + PCIe read 64 B %.1f + PCIe write 64 B %.1f + payload on the wire %.2f",
		w64.LatencyNS.P50, want, zero.LatencyNS.P50, wireRTT, zero.LatencyNS.P50-wireRTT, rd.LatencyNS.P50, wr.LatencyNS.P50, ser)
	require.GreaterOrEqual(t, zero.LatencyNS.P50, wireRTT, "a zero-length Write still crosses the wire twice")
	require.InEpsilon(t, want, w64.LatencyNS.P50, 0.20)
}

// A long message moves packet by packet (the host read, the wire and the
// placement overlap), so one outstanding 1 MiB Read or Write keeps the
// slowest link nearly as busy as four do: at least 85 % of their goodput.
func TestOneLongMessageStreamsPacketByPacket(t *testing.T) {
	for _, kind := range []string{"rdma_read", "rdma_write"} {
		src := "run: {warmup_us: 100, duration_us: 1500}\ngenerators: [{name: g, kind: " + kind + ", size_bytes: 1048576, remote_pages: 256}]\n"
		one := rdmaGen(t, src)
		four := rdmaGen(t, src, "generators.g.outstanding=4")
		t.Logf("%s 1 MiB: %.1f Gb/s with one outstanding (p50 %.0f ns), %.1f with four, bound by %s", kind, one.GoodputGbps, one.LatencyNS.P50, four.GoodputGbps, four.BoundBy.Resource)
		require.Zero(t, one.Failed)
		require.GreaterOrEqual(t, one.GoodputGbps, 0.85*four.GoodputGbps, kind)
	}
}

// Throughput of 4 KiB Writes on one QP grows with outstanding until the
// PCIe link or the wire saturates, then stays.
func TestRDMAWriteThroughputGrowsWithOutstanding(t *testing.T) {
	var prev float64
	var first float64
	for i, o := range []string{"1", "2", "4", "8", "16", "32"} {
		g := rdmaGen(t, "adapter: {preset: generic, pcie: {gen: 4, lanes: 16, tags_max: 256, host_nph_credits: 256}}\nrun: {warmup_us: 10, duration_us: 100}\ngenerators: [{name: w, kind: rdma_write, size_bytes: 4096, outstanding: "+o+"}]\n")
		t.Logf("outstanding %s: %.3f Mops/s, %.1f Gb/s, p50 %.0f ns", o, g.ThroughputMops, g.GoodputGbps, g.LatencyNS.P50)
		require.Zero(t, g.Failed)
		if i == 0 {
			first = g.ThroughputMops
		}
		require.GreaterOrEqual(t, g.ThroughputMops, prev*0.98, "outstanding %s", o)
		prev = g.ThroughputMops
	}
	require.Greater(t, prev, 4*first, "one Write in flight leaves the wire mostly idle")
}

// With enough in flight on a PCIe link faster than the wire (gen4 x16),
// 4 KiB Writes reach the wire rate less what a packet adds: its headers,
// the RETH of a Write and the Ethernet framing.
func TestRDMAWrite4KGoodputApproachesWireRate(t *testing.T) {
	g := rdmaGen(t, "adapter: {preset: generic, pcie: {gen: 4, lanes: 16, tags_max: 256, host_nph_credits: 256}}\nrun: {warmup_us: 20, duration_us: 200}\ngenerators: [{name: w, kind: rdma_write, size_bytes: 4096, streams: 4, outstanding: 16}]\n")
	ws := nic.DefaultWireSpec()
	wire := float64(ws.GbitPerS) * 4096 / float64(4096+ws.HeaderBytes+16+ws.FramingBytes)
	t.Logf("4 KiB Write goodput %.2f Gb/s, wire rate less headers %.2f Gb/s", g.GoodputGbps, wire)
	require.Zero(t, g.Failed)
	require.InEpsilon(t, wire, g.GoodputGbps, 0.10)
	require.LessOrEqual(t, g.GoodputGbps, wire*1.001)
}

// A Write into a region without remote write rights fails: the first
// requests of each QP (those already sent when the first refusal comes
// back) with STATUS_ACCESS_VIOLATION, which puts the QP pair in error, and
// every later one with STATUS_CANCELLED; none succeeds.
func TestRDMAWriteWithoutRemoteWriteFailsEveryOp(t *testing.T) {
	r := runSrc(t, "run: {warmup_us: 0, duration_us: 50}\ngenerators: [{name: w, kind: rdma_write, streams: 2, outstanding: 2, remote_rights: [remote_read]}]\n")
	g := r.Points[0].Generators[0]
	require.NotZero(t, g.Completed)
	require.Equal(t, g.Completed, g.Failed)
	require.Zero(t, g.GoodputGbps)
	got := map[string]uint64{}
	for _, f := range g.Failures {
		got[f.Reason] = f.Count
	}
	t.Logf("failures: %v", got)
	av := got["STATUS_ACCESS_VIOLATION"]
	require.GreaterOrEqual(t, av, uint64(2), "at least the first request of each QP")
	require.LessOrEqual(t, av, uint64(4), "at most the requests already on the wire (streams x outstanding)")
	require.Equal(t, g.Failed, got["STATUS_ACCESS_VIOLATION"]+got["STATUS_CANCELLED"])
}

// Reads and Sends run, and host b's statistics are in the registry.
func TestRDMAReadAndSendRun(t *testing.T) {
	for _, k := range []string{"rdma_read", "send"} {
		r := runSrc(t, "run: {warmup_us: 5, duration_us: 50}\ngenerators: [{name: g, kind: "+k+", streams: 2, outstanding: 4, size_bytes: 1024}]\n")
		g := r.Points[0].Generators[0]
		t.Logf("%s: %.3f Mops/s, %.1f Gb/s, p50 %.0f ns", k, g.ThroughputMops, g.GoodputGbps, g.LatencyNS.P50)
		require.NotZero(t, g.Completed, k)
		require.Zero(t, g.Failed, k)
		require.InEpsilon(t, g.ThroughputMops*1024*8/1e3, g.GoodputGbps, 1e-5) // both to 6 digits
	}
}

// Same file and seed: identical results (latencies and counts).
func TestRDMADeterministic(t *testing.T) {
	src := "run: {seed: 7, warmup_us: 5, duration_us: 50}\ngenerators:\n  - {name: w, kind: rdma_write, streams: 3, outstanding: 3, size_bytes: {uniform: {min: 64, max: 4096}}}\n  - {name: r, kind: rdma_read, streams: 2, outstanding: 2, size_bytes: 512}\n  - {name: s, kind: send, streams: 2, outstanding: 2, size_bytes: 256}\n  - {name: c, kind: fr_write_send_inv, streams: 2, outstanding: 2, pages: {uniform: {min: 1, max: 4}}, size_bytes: 512}\n"
	a, err := json.Marshal(runSrc(t, src).Points[0].Generators)
	require.NoError(t, err)
	b, err := json.Marshal(runSrc(t, src).Points[0].Generators)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(b))
}

// Files without remote kinds build no host b.
func TestNoHostBWithoutRemoteKinds(t *testing.T) {
	f := load(t, "run: {duration_us: 1}\ngenerators: [{kind: dma_read}]\n")
	m, err := Build(f.Points[0])
	require.NoError(t, err)
	require.Nil(t, m.B)
	require.Nil(t, m.Wire)
}

// The two-host chain: b's FastRegister, a's Write into the FR MR under its
// remote token, a's SendAndInvalidate of the token; every chain
// invalidates its MR on host b (B.NIC.DataPath.RemoteInvalidations), and
// the parts come in order inside the chain's latency.
func TestFRWriteSendInvChainRunsAndInvalidates(t *testing.T) {
	r := runSrc(t, "run: {warmup_us: 5, duration_us: 100}\ngenerators: [{name: c, kind: fr_write_send_inv, streams: 2, outstanding: 2, pages: 2, size_bytes: 1024}]\n")
	p := r.Points[0]
	g := p.Generators[0]
	require.NotZero(t, g.Completed)
	require.Zero(t, g.Failed)
	require.Len(t, g.Parts, 3)
	require.Equal(t, []string{"c/fast_register", "c/write", "c/send_and_invalidate"}, []string{g.Parts[0].Name, g.Parts[1].Name, g.Parts[2].Name})
	sum := g.Parts[0].LatencyNS.P50 + g.Parts[1].LatencyNS.P50 + g.Parts[2].LatencyNS.P50
	t.Logf("chain p50 %.1f ns; parts %.1f + %.1f + %.1f = %.1f", g.LatencyNS.P50, g.Parts[0].LatencyNS.P50, g.Parts[1].LatencyNS.P50, g.Parts[2].LatencyNS.P50, sum)
	require.GreaterOrEqual(t, g.LatencyNS.P50, sum*0.99)
	inv := statValue(t, p, "B.NIC.DataPath.RemoteInvalidations")
	require.GreaterOrEqual(t, inv, g.Completed, "one invalidation per chain (setup and warm-up chains included)")
	require.Zero(t, statValue(t, p, "B.NIC.DataPath.RemoteInvalidateRefused"))
}

// A SendAndInvalidate's MPT write takes a TPT write slot like every other
// registration write, and waits for one when none is free: on nfp6000-e5,
// whose receiving host's TPT write slots are 92 % busy with the chain's
// FastRegisters, host b writes one MPT entry per remote invalidation, and
// twice the slots does not lower the rate. Before, the write was left out
// when no slot was free (741 written for 2,202 invalidations), and twice
// the slots lowered the rate by 10 % (more of the writes were made).
func TestRemoteInvalidationWritesItsMPTEntryWhenASlotFrees(t *testing.T) {
	const src = "adapter: {preset: nfp6000-e5}\nrun: {seed: 1, warmup_us: 50, duration_us: 200}\n" +
		"generators: [{name: g, kind: fr_write_send_inv, streams: 16, outstanding: 4}]\n"
	p := runSrc(t, src).Points[0]
	entry := statValue(t, p, "B.NIC.TPT.MPTCache.ICMWriteBytes") / 32
	fr := statValue(t, p, "B.NIC.FastRegister.PCIeBytes.MPTWrite") / 32
	inits := statValue(t, p, "B.NIC.InitializeFastRegisterMr.MPTWrites")
	inv := statValue(t, p, "B.NIC.DataPath.RemoteInvalidations")
	t.Logf("MPT entries written %d: FastRegister %d, initialisation %d, the rest %d for %d remote invalidations", entry, fr, inits, entry-fr-inits, inv)
	require.InDelta(t, float64(inv), float64(entry-fr-inits), 16, "at most the write slots' worth still queued at the end")
	base := p.Generators[0].ThroughputMops
	more := rdmaGen(t, src, "adapter.mtt.write_ops_max=32").ThroughputMops
	t.Logf("%.3f Mops/s; twice the TPT write slots %.3f (x%.3f)", base, more, more/base)
	require.GreaterOrEqual(t, more, 0.98*base)
}
