package traffic

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

const frInv = "generators:\n  - {name: fr, kind: fast_register_invalidate, streams: 2, outstanding: 2"

func statValue(t *testing.T, p results.PointResult, name string) uint64 {
	t.Helper()
	return uint64(statFloat(t, &p, name))
}

// The chain completes with the Invalidate's CQE; its parts are the
// FastRegister's and the Invalidate's own post-to-CQE latencies, and the
// NIC's statistics are in the run's registry.
func TestFastRegisterInvalidateRunsAndReportsParts(t *testing.T) {
	r := runSrc(t, "run: {warmup_us: 5, duration_us: 100}\n"+frInv+"}\n")
	p := r.Points[0]
	g := p.Generators[0]
	require.NotZero(t, g.Completed)
	require.Zero(t, g.Failed)
	require.Len(t, g.Parts, 2)
	require.Equal(t, "fr/fast_register", g.Parts[0].Name)
	require.Equal(t, "invalidate", g.Parts[1].Kind)
	require.NotZero(t, g.Parts[0].Completed)
	require.Less(t, g.Parts[0].LatencyNS.P50, g.LatencyNS.P50, "the FastRegister's CQE comes before the chain's end")
	require.Zero(t, g.GoodputGbps, "a registration moves no payload")
	require.Equal(t, "registered_pages", g.Figure.Name)
	require.InDelta(t, g.ThroughputMops, g.Figure.Value, 1e-9, "1 page per chain")
	require.NotZero(t, statValue(t, p, "NIC.FastRegister.Completed"))
	require.NotZero(t, statValue(t, p, "NIC.Invalidate.CQEs"))
}

// Setup runs pending creation calls to completion before warm-up: more MRs
// than the provider's pool (64) need 50 µs firmware commands.
func TestSetupRunsPendingCreationCallsBeforeWarmup(t *testing.T) {
	few := runSrc(t, "run: {warmup_us: 1, duration_us: 20}\n"+frInv+"}\n").Points[0]
	many := runSrc(t, "run: {warmup_us: 1, duration_us: 100}\ngenerators:\n  - {kind: fast_register_invalidate, streams: 16, outstanding: 8}\n").Points[0]
	require.Less(t, few.SetupPS, uint64(sim.US), "4 MRs from the pool: only MPT writes")
	require.GreaterOrEqual(t, many.SetupPS, uint64(64*50*sim.US), "128 MRs: 64 beyond the pool take a 50 µs firmware command each, one at a time")
	require.Equal(t, many.SetupPS+many.WarmupPS+many.WindowPS, many.SimTimePS)
	require.NotZero(t, many.Generators[0].Completed)
}

// docs/sources.md 5 and docs/nic.md: with the page list fetched by DMA each
// registration waits for one dependent PCIe read, so inline lists give
// several times the throughput (the nic package measures 4.9x at 16 QPs x
// 8). The built-in workload must show it.
func TestInlineVsDMAWorkloadShowsSeveralTimesTheThroughput(t *testing.T) {
	src, err := os.ReadFile("../fastreg-inline-vs-dma.yaml")
	require.NoError(t, err)
	f, err := workloads.LoadBytes("../fastreg-inline-vs-dma.yaml", src, workloads.Options{Sets: []string{"run.duration_us=1000"}})
	require.NoError(t, err)
	r, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	require.Len(t, r.Points, 4)
	thr := map[string]float64{}
	for _, p := range r.Points {
		require.Zero(t, p.Generators[0].Failed)
		thr[p.Label] = p.Generators[0].ThroughputMops
	}
	for _, pages := range []string{"1", "8"} {
		in := thr["generators.fr-inv.inline_page_list=true generators.fr-inv.pages="+pages]
		dma := thr["generators.fr-inv.inline_page_list=false generators.fr-inv.pages="+pages]
		t.Logf("%s page(s): inline %.2f M/s, DMA-fetched %.2f M/s, ratio %.2f", pages, in, dma, in/dma)
		require.GreaterOrEqual(t, in/dma, 3.5, "%s pages", pages)
		require.InDelta(t, 1.9, dma, 0.4, "one dependent read round trip per registration (~1.3-1.9 M/s)")
	}
	// inline_page_list: false set the adapter for its points.
	require.Equal(t, uint32(0), f.Points[2].Adapter.NIC.InlinePageListEntriesMax)
	require.Equal(t, uint32(8), f.Points[0].Adapter.NIC.InlinePageListEntriesMax)
}

// docs/sources.md 2: one doorbell per DEFER chain; with defer_chain 2 a chain
// of FastRegister(DEFER)+Invalidate rings one doorbell for two WRs.
func TestDeferChainHalvesDoorbellsAndRaisesThroughput(t *testing.T) {
	run := func(chain string) results.PointResult {
		return runSrc(t, "adapter: {nic: {wqe_by_mmio: false}}\nrun: {warmup_us: 5, duration_us: 300}\n"+
			"generators:\n  - {name: fr, kind: fast_register_invalidate, outstanding: 32, defer_chain: "+chain+"}\n").Points[0]
	}
	one, two, eight := run("1"), run("2"), run("8")
	db := func(p results.PointResult) float64 {
		return float64(statValue(t, p, "NIC.Doorbell.Doorbells")) / float64(statValue(t, p, "NIC.FastRegister.Posted"))
	}
	t.Logf("doorbells per chain: %.2f, %.2f, %.2f; M chains/s: %.2f, %.2f, %.2f", db(one), db(two), db(eight),
		one.Generators[0].ThroughputMops, two.Generators[0].ThroughputMops, eight.Generators[0].ThroughputMops)
	require.InDelta(t, 2, db(one), 0.05)
	require.InDelta(t, 1, db(two), 0.05)
	require.Less(t, db(eight), 0.3, "chains of 8 WRs: a doorbell per 4 chains")
	require.Greater(t, two.Generators[0].ThroughputMops, 1.3*one.Generators[0].ThroughputMops)
}

// A post the provider refuses inline (here remote rights on an MR
// initialised without RemoteAccess) stops the run with the status: nothing
// was posted, so a closed loop would retry it forever at one instant.
func TestInlineFailureStopsTheRunWithTheStatus(t *testing.T) {
	f := load(t, "run: {warmup_us: 0, duration_us: 20}\n"+frInv+"}\n")
	f.Points[0].Generators[0].Params.(*workloads.FRInvParams).RemoteAccess = false // bypass Check
	_, err := RunFile(f, RunOptions{})
	require.ErrorContains(t, err, "NdkFastRegister failed inline with "+nic.StatusAccessViolation.String())
}

func TestFastRegisterInvalidateDeterministic(t *testing.T) {
	src, err := os.ReadFile("../quickstart.yaml")
	require.NoError(t, err)
	var out [2][]byte
	for i := range out {
		f, err := workloads.LoadBytes("../quickstart.yaml", src, workloads.Options{Sets: []string{"run.duration_us=200"}})
		require.NoError(t, err)
		r, err := RunFile(f, RunOptions{})
		require.NoError(t, err)
		out[i], err = json.Marshal(r)
		require.NoError(t, err)
	}
	require.Equal(t, string(out[0]), string(out[1]))
}

// Open loop: chains arrive at a fixed rate below saturation and complete at
// that rate; pages drawn from a distribution stay within their bounds.
func TestFastRegisterInvalidateOpenLoopMeetsTheRate(t *testing.T) {
	g := runSrc(t, "run: {warmup_us: 10, duration_us: 400}\ngenerators:\n  - {kind: fast_register_invalidate, streams: 4, outstanding: 4, "+
		"arrival: {process: fixed, rate_mops: 2}, pages: {uniform: {min: 1, max: 16}}}\n").Points[0].Generators[0]
	require.InDelta(t, 2, g.ThroughputMops, 0.05)
	require.Zero(t, g.Failed)
	require.Zero(t, g.Dropped)
	require.Less(t, g.LatencyNS.P50, 2000.0, "unloaded: well below a microsecond or two")
}

type recordDone struct {
	ok     []uint64
	failed map[uint64]string
}

func (r *recordDone) Handle(_ sim.Tick, i uint64) { r.ok = append(r.ok, i) }
func (r *recordDone) Fail(_ sim.Tick, i uint64, reason string) {
	r.failed[i] = reason
}

// An error completion (the NIC refused the request: the QP goes to the
// error state and what follows is cancelled) fails the chain with the
// first status name; a success completes it.
func TestErrorCompletionFailsTheChainWithItsStatus(t *testing.T) {
	d := &recordDone{failed: map[uint64]string{}}
	s := &frInvSource{m: &Model{}, done: d, lat: pairLat{first: nic.OpFastRegister}, ops: make([]frOp, 2), pending: make([][]uint64, 1), inflight: []int{2}, perQP: 2}
	s.result(10, &nic.Result{Status: nic.StatusInvalidDeviceState, Type: nic.OpFastRegister, RequestContext: 0})
	s.result(11, &nic.Result{Status: nic.StatusCancelled, Type: nic.OpInvalidate, RequestContext: 0})
	s.result(12, &nic.Result{Status: nic.StatusSuccess, Type: nic.OpFastRegister, RequestContext: 1})
	s.result(13, &nic.Result{Status: nic.StatusSuccess, Type: nic.OpInvalidate, RequestContext: 1})
	require.Equal(t, map[uint64]string{0: nic.StatusInvalidDeviceState.String()}, d.failed)
	require.Equal(t, []uint64{1}, d.ok)
	require.Equal(t, 0, s.inflight[0])
	require.Equal(t, uint64(1), s.lat.firstLat.Summarize().Count)
}
