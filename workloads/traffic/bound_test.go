package traffic

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
		name: "4 KiB RDMA Writes through an 8 KiB transmit buffer, 2 us host reads: the transmit buffer",
		src: "adapter: {nic: {tx_buffer_bytes: 8192}, pcie: {host_read_latency_fixed_ns: 2000}}\nrun: {warmup_us: 20, duration_us: 200}\n" +
			"generators: [{name: g, kind: rdma_write, size_bytes: 4096, streams: 4, outstanding: 16}]\n",
		resource: "NIC.Requester.TxBuffer",
		double:   []string{"adapter.nic.tx_buffer_bytes=16384"},
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

// A wire slower than the PCIe link that reads the payloads binds 4 KiB
// Writes, and bound_by names it: the link reads only as far ahead as the
// transmit buffer holds. On connectx-5 (a 100 Gb/s wire, gen3 x16) the
// link is below 97 % busy; twice the wire raises the rate, twice the link
// does not. Before the transmit buffer the link read every request in
// flight ahead of the wire, stayed 100 % busy through a 200 us window, and
// bound_by named NIC.PCIe.Down.
func TestBoundByNamesTheWireNotTheLinkThatWouldReadAhead(t *testing.T) {
	const src = "adapter: {preset: connectx-5}\nrun: {warmup_us: 50, duration_us: 200}\n" +
		"generators: [{name: g, kind: rdma_write, size_bytes: 4096, streams: 16, outstanding: 8}]\n"
	pt := &runSrc(t, src).Points[0]
	base := pt.Generators[0]
	require.Equal(t, "Wire.AtoB", base.BoundBy.Resource, "%+v", base.BoundBy)
	i := slices.IndexFunc(pt.Utilisation, func(u results.ResourceUse) bool { return u.Name == "NIC.PCIe.Down" })
	require.GreaterOrEqual(t, i, 0)
	require.Less(t, pt.Utilisation[i].Utilisation, 0.97)
	wire := rdmaGen(t, src, "adapter.wire.gbit_per_s=200")
	link := rdmaGen(t, src, "adapter.pcie.gen=4")
	t.Logf("%.3f Mops/s; twice the wire %.3f (x%.3f), twice the link %.3f (x%.3f)", base.ThroughputMops,
		wire.ThroughputMops, wire.ThroughputMops/base.ThroughputMops, link.ThroughputMops, link.ThroughputMops/base.ThroughputMops)
	require.Greater(t, wire.ThroughputMops, 1.03*base.ThroughputMops)
	require.InEpsilon(t, base.ThroughputMops, link.ThroughputMops, 0.01)
}

// A deeper window does not lower the rate: 64 B RDMA Writes and Reads, 4
// QPs each, at 64 outstanding per QP saturate the link (both directions),
// which bound_by names, and go at least as fast as at 16. A Write's payload read
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
	for _, g := range gens { // both directions saturate: the writes' payload reads, the reads' data
		require.Contains(t, []string{"NIC.PCIe.Up", "NIC.PCIe.Down"}, g.BoundBy.Resource, "%s: %+v", g.Name, g.BoundBy)
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

// A generator is bound only by resources it can use: of the meters of one
// posting core, execution engine or QP, those of its own QPs (QP n posts on
// core n mod host_cores and runs on engine n mod exec_engines), and the
// firmware and driver thread only when its operations are firmware
// commands. Before, each was chosen among every meter its kind's scope
// has, so another generator's resource could be named.
func TestBoundByNamesOnlyTheGeneratorsOwnResources(t *testing.T) {
	bound := func(src string, sets ...string) map[string]results.BoundBy {
		r := runSrc(t, src, sets...)
		require.Len(t, r.Points, 1)
		out := map[string]results.BoundBy{}
		for _, g := range r.Points[0].Generators {
			out[g.Name] = g.BoundBy
		}
		return out
	}
	t.Run("the firmware only for register_mr", func(t *testing.T) {
		// One FastRegister+Invalidate at a time goes at its latency
		// (2.31 M/s whatever the firmware's speed); the firmware, 98 %
		// busy with register_mr's commands, binds register_mr only.
		b := bound("run: {seed: 1, warmup_us: 100, duration_us: 2000}\ngenerators:\n" +
			"  - {name: fr, kind: fast_register_invalidate, streams: 1, outstanding: 1, pages: 1}\n" +
			"  - {name: reg, kind: register_mr, outstanding: 4, pages: 1}\n")
		require.Equal(t, results.BoundWindow, b["fr"].Resource, "%+v", b["fr"])
		require.NotEqual(t, "NIC.Firmware", b["fr"].Busiest, "%+v", b["fr"])
		require.Equal(t, "NIC.Firmware", b["reg"].Resource, "%+v", b["reg"])
	})
	t.Run("register_mr never by the send-queue pipeline", func(t *testing.T) {
		// fr's completion engine, slowed to one CQE per 40 cycles, is
		// saturated; register_mr's commands never enter it, and one at a
		// time, of 256 pages each, they keep neither the firmware nor the
		// driver thread (pinning) 90 % busy.
		b := bound("adapter: {nic: {completion: {interval_cycles: 40}}}\nrun: {seed: 1, warmup_us: 100, duration_us: 2000}\ngenerators:\n" +
			"  - {name: fr, kind: fast_register_invalidate, streams: 16, outstanding: 8, pages: 1}\n" +
			"  - {name: reg, kind: register_mr, outstanding: 1, pages: 256}\n")
		require.Equal(t, "NIC.Completion", b["fr"].Resource, "%+v", b["fr"])
		require.Equal(t, results.BoundWindow, b["reg"].Resource, "%+v", b["reg"])
		require.NotEqual(t, "NIC.Completion", b["reg"].Busiest, "%+v", b["reg"])
	})
	t.Run("a core only for the QPs that post on it", func(t *testing.T) {
		// busy's QP 0 saturates core 0; idle's QP 1 posts on core 1.
		b := bound("run: {seed: 1, warmup_us: 20, duration_us: 300}\ngenerators:\n" +
			"  - {name: busy, kind: bind_invalidate, streams: 1, outstanding: 16}\n" +
			"  - {name: idle, kind: bind_invalidate, streams: 1, outstanding: 1}\n")
		require.Equal(t, "Host.Core[0]", b["busy"].Resource, "%+v", b["busy"])
		require.Equal(t, results.BoundWindow, b["idle"].Resource, "%+v", b["idle"])
		require.NotContains(t, b["idle"].Busiest, "Host.Core[0]", "%+v", b["idle"])
	})
	t.Run("an engine only for the QPs that run on it", func(t *testing.T) {
		// QPs 0 and 2 (g0, g2) run on engine 0, QP 1 (g1) on engine 1;
		// both engines' page-list reads are saturated.
		gen := "  - {name: g%d, kind: fast_register_invalidate, streams: 1, outstanding: 8, pages: 1, inline_page_list: false}\n"
		src := "run: {seed: 1, warmup_us: 200, duration_us: 1000}\ngenerators:\n"
		for i := range 3 {
			src += fmt.Sprintf(gen, i)
		}
		b := bound(src, "adapter.nic.exec_engines=2")
		for name, engine := range map[string]string{"g0": "NIC.Engine[0].", "g1": "NIC.Engine[1].", "g2": "NIC.Engine[0]."} {
			require.True(t, strings.HasPrefix(b[name].Resource, engine), "%s: %+v", name, b[name])
		}
	})
}

// Every kind that creates QPs says which (QPSource): the QP meters a
// generator's setup adds to the model, on host a and host b, are exactly
// the QPs its bound_by may name, so no kind is left bound by none of its
// cores, engines or QPs.
func TestEveryKindReportsTheQPsItCreates(t *testing.T) {
	kinds := map[string]string{
		"bind_invalidate":          "streams: 2",
		"fast_register_invalidate": "streams: 2",
		"fr_write_send_inv":        "streams: 2",
		"rdma_write":               "streams: 2",
		"rdma_read":                "streams: 2",
		"send":                     "streams: 2",
		"register_mr":              "outstanding: 2",
		"dma_read":                 "outstanding: 2",
		"dma_write":                "outstanding: 2",
		"translate":                "region: d",
	}
	for kind := range sources {
		require.Contains(t, kinds, kind, "a kind this test does not build")
	}
	src := "run: {duration_us: 1}\nregions: [{name: d, pages: 16}]\ngenerators:\n"
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		src += fmt.Sprintf("  - {name: %s, kind: %s, %s}\n", kind, kind, kinds[kind])
	}
	w := load(t, src).Points[0]
	m, err := Build(w)
	require.NoError(t, err)
	qpMeters := func() map[string]bool {
		out := map[string]bool{}
		for _, mt := range m.Env.Meters.List() {
			if n := strings.TrimPrefix(mt.Name(), "B."); strings.HasPrefix(n, NICName+".QP[") {
				out[mt.Name()[:strings.IndexByte(mt.Name(), ']')+1]] = true
			}
		}
		return out
	}
	for i := range w.Generators {
		before := qpMeters()
		g, err := newGenerator(m, &w.Generators[i], w.Run.Seed, 0, 0, nil)
		require.NoError(t, err)
		made, own := map[string]bool{}, map[string]bool{}
		for q := range qpMeters() {
			if !before[q] {
				made[q] = true
			}
		}
		for inst := range g.use.own {
			if strings.Contains(inst, ".QP[") {
				own[inst] = true
			}
		}
		require.Equal(t, made, own, "%s", g.cfg.Kind)
		_, isQP := g.src.(QPSource)
		require.Equal(t, len(made) > 0, isQP, "%s", g.cfg.Kind)
	}
}

// A requester whose PCIe link places Read responses slower than the peer
// reads them holds the peer back through its receive buffer: 4 KiB Reads
// on the generic preset, 16 QPs x 8, over 1 ms, are bound by the
// requester's upstream link, and every Read waits about as long as the
// others (p99 within 5 % of p50). Without the receive buffer the peer read
// ahead and the placements queued behind the requester's link, ahead of
// its own CQEs and WQE fetches: 1.555 Mops/s with a p99 of 130.6 us
// against a p50 of 83.3 us.
func TestReadsWaitForTheRequesterThatPlacesSlowerThanThePeerReads(t *testing.T) {
	const src = "run: {warmup_us: 50, duration_us: 1000}\n" +
		"generators: [{name: g, kind: rdma_read, size_bytes: 4096, streams: 16, outstanding: 8}]\n"
	g := runSrc(t, src).Points[0].Generators[0]
	t.Logf("%.3f Mops/s, p50 %.1f ns, p99 %.1f ns, %+v", g.ThroughputMops, g.LatencyNS.P50, g.LatencyNS.P99, g.BoundBy)
	require.Equal(t, "NIC.PCIe.Up", g.BoundBy.Resource)
	require.LessOrEqual(t, g.LatencyNS.P99, 1.05*g.LatencyNS.P50)
}

// Two resources saturated together are both named: random translations
// that all hit use a port of the MPT cache and one of the MTT cache each
// cycle, so both are 100 % busy; bound_by names one and Also the other.
// Twice the named one's ports alone gives nothing (and then bound_by names
// the other), twice both doubles the rate.
func TestBoundByAlsoNamesTheResourceSaturatedBesideIt(t *testing.T) {
	const src = "run: {seed: 4, warmup_us: 50, ops: 5000}\n" +
		"regions: [{name: data, pages: 512, page_bytes: 4096, rights: [remote_read]}]\n" +
		"generators: [{name: g, kind: translate, region: data, outstanding: 32, length_bytes: 64, align_bytes: 64, access: remote_read}]\n"
	const mpt, mttPorts = "adapter.mtt.mpt_cache.ports_per_cycle=2", "adapter.mtt.mtt_cache.ports_per_cycle=2"
	base := runSrc(t, src).Points[0].Generators[0]
	require.Equal(t, "NIC.TPT.MPTCache.Ports", base.BoundBy.Resource)
	require.Equal(t, []string{"NIC.TPT.MTTCache.Ports"}, base.BoundBy.Also)
	one := runSrc(t, src, mpt).Points[0].Generators[0]
	both := runSrc(t, src, mpt, mttPorts).Points[0].Generators[0]
	t.Logf("%.1f M/s; twice the named ports %.1f (%s), twice both %.1f", base.ThroughputMops, one.ThroughputMops, one.BoundBy, both.ThroughputMops)
	require.InEpsilon(t, base.ThroughputMops, one.ThroughputMops, 0.01)
	require.Equal(t, "NIC.TPT.MTTCache.Ports", one.BoundBy.Resource)
	require.Empty(t, one.BoundBy.Also)
	require.Greater(t, both.ThroughputMops, 1.9*base.ThroughputMops)
}
