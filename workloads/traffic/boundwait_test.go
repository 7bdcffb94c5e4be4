package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
)

// sendsByDoorbell are connectx-5's 256 B Sends by doorbell, 32 QPs with 2
// each in flight: 64 WQE fetches in a round trip of about 3.3 us.
const sendsByDoorbell = "adapter: {preset: connectx-5, nic: {wqe_by_mmio: false}}\n" +
	"run: {warmup_us: 20, duration_us: 200}\n" +
	"generators: [{name: g, kind: send, streams: 32, outstanding: 2, size_bytes: 256}]\n"

// waited is how long requests waited for the pool named name in r's first
// point (results.ResourceUse.Waited); it fails when the pool does not say.
func waited(t *testing.T, r *results.Result, name string) float64 {
	t.Helper()
	for _, u := range r.Points[0].Utilisation {
		if u.Name == name {
			require.NotNil(t, u.Waited, "%s reports no waits", name)
			return *u.Waited
		}
	}
	t.Fatalf("no meter %s", name)
	return 0
}

// A full pool binds only when requests wait for it. With 16 WQE fetch
// slots the slots read 96 % full, but each comes back about when the next
// request for one arrives: a request waits in 13 % of the window, twice
// the slots give nothing, and the loop's round trip (its window) sets the
// rate. With 8 slots requests wait all the time, and the slots bind: twice
// them nearly doubles the rate. Before pools said whether anything waited
// for them, bound_by named the 16 slots.
func TestAPoolFullWithNoRequestWaitingDoesNotBind(t *testing.T) {
	const slots = "NIC.WQEFetch.Reads"
	base := runSrc(t, sendsByDoorbell)
	g := base.Points[0].Generators[0]
	twice := rdmaGen(t, sendsByDoorbell, "adapter.nic.wqe_fetch_outstanding_max=32")
	t.Logf("16 slots: %.3f Mops/s, %s, waited %.3f; 32 slots: %.3f", g.ThroughputMops, g.BoundBy, waited(t, base, slots), twice.ThroughputMops)
	require.Equal(t, results.BoundWindow, g.BoundBy.Resource)
	require.Equal(t, slots, g.BoundBy.Busiest)
	require.GreaterOrEqual(t, g.BoundBy.Utilisation, results.BoundUtilisationMin)
	require.Less(t, waited(t, base, slots), results.BoundWaitMin)
	require.InEpsilon(t, g.ThroughputMops, twice.ThroughputMops, 0.01)

	few := runSrc(t, sendsByDoorbell, "adapter.nic.wqe_fetch_outstanding_max=8")
	f := few.Points[0].Generators[0]
	t.Logf("8 slots: %.3f Mops/s, %s, waited %.3f", f.ThroughputMops, f.BoundBy, waited(t, few, slots))
	require.Equal(t, slots, f.BoundBy.Resource)
	require.GreaterOrEqual(t, waited(t, few, slots), results.BoundWaitMin)
	require.Greater(t, g.ThroughputMops, 1.8*f.ThroughputMops)
}

// A QP's fetch is its read, not its wait before it: with 8 WQE fetch slots
// for 32 QPs each QP's fetch request waits for a slot most of its time,
// and its read is in flight a quarter of it. bound_by names the slots that
// QPs wait for, not the QPs' fetches (named at 100 % while they counted
// from the request).
func TestAQPsFetchCountsItsReadNotItsWaitForASlot(t *testing.T) {
	r := runSrc(t, sendsByDoorbell, "adapter.nic.wqe_fetch_outstanding_max=8")
	var qp results.ResourceUse
	for _, u := range r.Points[0].Utilisation {
		if u.Name == "NIC.QP[0].Fetch" {
			qp = u
		}
	}
	t.Logf("%+v, waited %.3f", qp, waited(t, r, qp.Name))
	require.Less(t, qp.Utilisation, 0.5)
	require.Equal(t, "NIC.WQEFetch.Reads", r.Points[0].Generators[0].BoundBy.Resource)
}

// The TPT's write slots say when a registration write waits for one. With
// one slot, FastRegister+Invalidate chains of 16 QPs x 8 wait for it most
// of the window (their writes hold it until the saturated upstream link
// takes them, so the link is named); one chain at a time never waits.
func TestTPTWriteSlotsReportTheirWaits(t *testing.T) {
	const src = "run: {warmup_us: 20, duration_us: 200}\n" +
		"generators: [{name: g, kind: fast_register_invalidate, streams: 16, outstanding: 8}]\n"
	busy := runSrc(t, src, "adapter.mtt.write_ops_max=1")
	alone := runSrc(t, src, "generators.g.streams=1", "generators.g.outstanding=1")
	t.Logf("one slot: waited %.3f, %s; one chain: waited %.4f", waited(t, busy, "NIC.TPT.Writes"),
		busy.Points[0].Generators[0].BoundBy, waited(t, alone, "NIC.TPT.Writes"))
	require.GreaterOrEqual(t, waited(t, busy, "NIC.TPT.Writes"), results.BoundWaitMin)
	require.Equal(t, "NIC.PCIe.Up", busy.Points[0].Generators[0].BoundBy.Resource)
	require.Less(t, waited(t, alone, "NIC.TPT.Writes"), 0.01)
}

// A pool that requests wait for binds beside a saturated server unless its
// units are held across that server. connectx-5's 256 B Writes by
// doorbell, 32 QPs x 8: the wire is 100 % busy and the WQE fetch's slots,
// held for a host read, are full with fetches waiting; twice the wire
// gives nothing, twice both raises the rate, and bound_by lists the slots
// beside the wire. nfp6000-e5's 256 B DMA reads, 64 in flight: the
// downstream link binds and the read tags are full with reads waiting, but
// a tag is held across the link (its completions queue there), so it is
// not listed.
func TestBoundByAlsoNamesAPoolThatBindsBesideTheServer(t *testing.T) {
	const writes = "adapter: {preset: connectx-5, nic: {wqe_by_mmio: false}}\n" +
		"run: {warmup_us: 50, duration_us: 200}\n" +
		"generators: [{name: g, kind: rdma_write, streams: 32, outstanding: 8, size_bytes: 256}]\n"
	base := rdmaGen(t, writes)
	wire := rdmaGen(t, writes, "adapter.wire.gbit_per_s=200")
	both := rdmaGen(t, writes, "adapter.wire.gbit_per_s=200", "adapter.nic.wqe_fetch_outstanding_max=32")
	t.Logf("%.3f Mops/s, %s; twice the wire %.3f, with twice the slots %.3f", base.ThroughputMops, base.BoundBy,
		wire.ThroughputMops, both.ThroughputMops)
	require.Equal(t, "Wire.AtoB", base.BoundBy.Resource)
	require.Equal(t, []string{"NIC.WQEFetch.Reads"}, base.BoundBy.Also)
	require.InEpsilon(t, base.ThroughputMops, wire.ThroughputMops, 0.01)
	require.Greater(t, both.ThroughputMops, 1.03*base.ThroughputMops)

	const reads = "adapter: {preset: nfp6000-e5}\nrun: {warmup_us: 20, duration_us: 100}\n" +
		"generators: [{name: g, kind: dma_read, size_bytes: 256, outstanding: 64}]\n"
	r := runSrc(t, reads)
	g := r.Points[0].Generators[0]
	t.Logf("%.3f Mops/s, %s, tags waited %.3f", g.ThroughputMops, g.BoundBy, waited(t, r, "NIC.PCIe.Tags"))
	require.Equal(t, "NIC.PCIe.Down", g.BoundBy.Resource)
	require.GreaterOrEqual(t, waited(t, r, "NIC.PCIe.Tags"), results.BoundWaitMin)
	require.Empty(t, g.BoundBy.Also)
}
