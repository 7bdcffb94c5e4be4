package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// attribution is one workload whose throughput one resource binds: the
// --set overrides that double that resource's capacity, and those that
// double a resource it does not name.
type attribution struct {
	name     string
	src      string
	resource string   // the meter bound_by must name
	double   []string // doubles the named resource's capacity
	other    []string // doubles a resource that is not named
}

// Core time halved: the posting core does twice the work per second.
var fasterCores = []string{"adapter.nic.post_wqe_build_ps=10000", "adapter.nic.post_doorbell_store_ps=5000",
	"adapter.nic.post_wc_line_ps=5000", "adapter.nic.poll_cqe_ps=12500"}

var attributions = []attribution{
	{
		name: "one QP, WQE-by-MMIO FastRegister+Invalidate: the posting core",
		src: "run: {warmup_us: 10, duration_us: 200}\n" +
			"generators: [{name: g, kind: fast_register_invalidate, streams: 1, outstanding: 32}]\n",
		resource: "Host.Core[0]",
		double:   fasterCores,
		other:    []string{"adapter.nic.page_list_fetches_max=2", "adapter.mtt.write_ops_max=32"},
	},
	{
		name: "DMA-fetched page lists: the engine's page-list read",
		src: "run: {warmup_us: 20, duration_us: 200}\n" +
			"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8, inline_page_list: false}]\n",
		resource: "NIC.Engine[0].PageList.Fetches",
		double:   []string{"adapter.nic.page_list_fetches_max=2"},
		other:    fasterCores,
	},
	{
		name: "4 KiB RDMA Writes on gen4 x16: the wire",
		src: "adapter: {preset: generic, pcie: {gen: 4, lanes: 16, tags_max: 256, host_nph_credits: 256}}\nrun: {warmup_us: 20, duration_us: 100}\n" +
			"generators: [{name: g, kind: rdma_write, size_bytes: 4096, streams: 4, outstanding: 16}]\n",
		resource: "Wire.AtoB",
		double:   []string{"adapter.wire.gbit_per_s=200"},
		other:    fasterCores,
	},
	{
		name: "NdkRegisterMr of one page, 4 in flight: the firmware",
		src: "run: {warmup_us: 100, duration_us: 1000}\n" +
			"generators: [{name: g, kind: register_mr, outstanding: 4, pages: 1}]\n",
		resource: "NIC.Firmware",
		double:   []string{"adapter.nic.register_firmware_ns=25000", "adapter.nic.deregister_firmware_ns=20000"},
		other:    []string{"adapter.nic.pin_ps_per_page=150000", "adapter.nic.unpin_ps_per_page=48000"},
	},
	{
		name: "128 MRs over a 64-entry MPT cache: validate, full and blocked by its MPT reads",
		src: "adapter: {mtt: {mpt_cache: {entries_max: 64}}}\nrun: {warmup_us: 20, duration_us: 200}\n" +
			"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n",
		resource: "NIC.Engine[0].Validate.ReadBlocked",
		double:   []string{"adapter.nic.exec_engines=2"},
		other:    fasterCores,
	},
	{
		name: "DMA-fetched page lists, 4 reads per engine, an Invalidate after each FastRegister: the page-list stage, full and blocked by its reads",
		src: "adapter: {nic: {page_list_fetches_max: 4}}\nrun: {warmup_us: 20, duration_us: 200}\n" +
			"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8, inline_page_list: false}]\n",
		resource: "NIC.Engine[0].PageList.ReadBlocked",
		double:   []string{"adapter.nic.exec_engines=2"},
		other:    fasterCores,
	},
	{
		name: "random translations over 16x the MTT cache's reach: its MSHRs",
		src: "run: {warmup_us: 30, duration_us: 100}\nregions: [{name: d, pages: 65536}]\n" +
			"generators: [{name: g, kind: translate, region: d, outstanding: 64}]\n",
		resource: "NIC.TPT.MTTCache.MSHRs",
		double:   []string{"adapter.mtt.mtt_cache.mshrs_max=32"},
		other:    []string{"adapter.mtt.mpt_cache.mshrs_max=32"},
	},
}

// Every result names what binds it, and the name is right: doubling the
// named resource's capacity raises throughput by at least 20 %, doubling
// one it does not name changes it by less than 5 %.
func TestBoundByNamesTheResourceWhoseCapacityMovesThroughput(t *testing.T) {
	for _, c := range attributions {
		t.Run(c.resource, func(t *testing.T) {
			base := rdmaGen(t, c.src)
			require.Equal(t, c.resource, base.BoundBy.Resource, "%s: %+v", c.name, base.BoundBy)
			require.GreaterOrEqual(t, base.BoundBy.Utilisation, results.BoundUtilisationMin)
			up := rdmaGen(t, c.src, c.double...)
			other := rdmaGen(t, c.src, c.other...)
			t.Logf("%s: %.3f Mops/s bound by %s; named resource doubled %.3f (x%.2f); %v: %.3f (x%.3f)", c.name,
				base.ThroughputMops, base.BoundBy, up.ThroughputMops, up.ThroughputMops/base.ThroughputMops,
				c.other, other.ThroughputMops, other.ThroughputMops/base.ThroughputMops)
			require.GreaterOrEqual(t, up.ThroughputMops, 1.2*base.ThroughputMops, "doubling %s", c.resource)
			require.InEpsilon(t, base.ThroughputMops, other.ThroughputMops, 0.05, "doubling what is not named: %v", c.other)
		})
	}
}

// A deeper window does not lower the rate: 64 B RDMA Writes and Reads, 4
// QPs each, at 64 outstanding per QP saturate the upstream link, which
// bound_by names, and go at least as fast as at 16. A Write's payload read
// waits for room in the DMA read queue only: when it waited for the write
// queue too, which CQEs and Read data fill, the in-order engine stalled
// while the upstream link drained writes, then flooded the downstream link
// with reads, and the two took turns (43.3 M/s at 64, 45.7 at 16, "window
// 86 % NIC.PCIe.Up").
func TestDeeperRDMAWindowSaturatesTheLinkItNames(t *testing.T) {
	const src = "run: {warmup_us: 20, duration_us: 200}\ngenerators:\n" +
		"  - {name: write, kind: rdma_write, streams: 4, size_bytes: 64, remote_pages: 16}\n" +
		"  - {name: read, kind: rdma_read, streams: 4, size_bytes: 64, remote_pages: 16}\n"
	total := func(outstanding string, sets ...string) (float64, []results.GenResult) {
		sets = append(sets, "generators.write.outstanding="+outstanding, "generators.read.outstanding="+outstanding)
		r := runSrc(t, src, sets...)
		require.Len(t, r.Points, 1)
		var m float64
		for _, g := range r.Points[0].Generators {
			m += g.ThroughputMops
		}
		return m, r.Points[0].Generators
	}
	shallow, _ := total("16")
	deep, gens := total("64")
	for _, g := range gens {
		require.Equal(t, "NIC.PCIe.Up", g.BoundBy.Resource, "%s: %+v", g.Name, g.BoundBy)
	}
	wide, _ := total("64", "adapter.pcie.lanes=16")
	fast, _ := total("64", fasterCores...)
	t.Logf("16 outstanding %.3f Mops/s, 64 %.3f, 64 on x16 %.3f, 64 with faster cores %.3f", shallow, deep, wide, fast)
	require.GreaterOrEqual(t, deep, shallow)
	require.GreaterOrEqual(t, wide, 1.2*deep)
	require.InEpsilon(t, deep, fast, 0.05)
}

// With nothing near saturation a closed loop says its own window of
// operations in flight sets the rate, and names the busiest resource.
func TestBoundByIsTheWindowWhenNothingSaturates(t *testing.T) {
	g := rdmaGen(t, "run: {warmup_us: 5, duration_us: 50}\ngenerators: [{name: g, kind: rdma_write, size_bytes: 64}]\n")
	require.Equal(t, results.BoundWindow, g.BoundBy.Resource)
	require.NotEmpty(t, g.BoundBy.Busiest)
	require.Less(t, g.BoundBy.Utilisation, results.BoundUtilisationMin)
	open := rdmaGen(t, "run: {warmup_us: 5, duration_us: 50}\ngenerators: [{name: g, kind: dma_read, arrival: {rate_mops: 1}}]\n")
	require.Equal(t, results.BoundOfferedLoad, open.BoundBy.Resource)
}

// A link direction keeps its busy level with Set, as a pool does, but it
// is a server: with the upstream link saturated and the posting cores 90 %
// busy, bound_by names the link, which binds (the cores' base costs leave
// the rate within 1 %), and names the cores once the link is doubled.
func TestBoundByTreatsTheLinkAsAServer(t *testing.T) {
	src := "run: {warmup_us: 20, duration_us: 200}\n" +
		"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n"
	slow := []string{"adapter.nic.post_wqe_build_ps=200000", "adapter.nic.post_wc_line_ps=100000"}
	g := rdmaGen(t, src, slow...)
	require.Equal(t, "NIC.PCIe.Up", g.BoundBy.Resource, "%+v", g.BoundBy)
	fast := rdmaGen(t, src)
	require.InEpsilon(t, fast.ThroughputMops, g.ThroughputMops, 0.01)
	wide := rdmaGen(t, src, append(slow, "adapter.pcie.lanes=16")...)
	require.Contains(t, wide.BoundBy.Resource, "Host.Core", "%+v", wide.BoundBy)
}

// An ops-bounded window ends at its last measured completion and holds the
// completions after its start, not one at its start too: translations that
// all hit the caches, one lookup a cycle at 1 GHz, measure 1000 M/s
// exactly, not one completion more than the window's cycles.
func TestOpsWindowCountsNoCompletionAtItsStart(t *testing.T) {
	g := rdmaGen(t, "run: {warmup_us: 50, ops: 5000}\nregions: [{name: d, pages: 1024}]\n"+
		"generators: [{name: g, kind: translate, region: d, outstanding: 32, length_bytes: 64, align_bytes: 64, access: remote_read}]\n")
	require.Equal(t, "NIC.TPT.MPTCache.Ports", g.BoundBy.Resource, "%+v", g.BoundBy)
	require.InDelta(t, 1000.0, g.ThroughputMops, 1e-9)
}
