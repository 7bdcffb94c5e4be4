package traffic

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/scenario"
)

// Every operation kind a workload file can name has a source.
func TestEveryKindHasASource(t *testing.T) {
	for _, k := range workloads.KindNames() {
		_, ok := sources[k]
		require.True(t, ok, "kind %s has no source (RegisterSource)", k)
	}
}

// One outstanding 64 B read on the default preset takes the measured
// pcie-bench median, 546 ns (docs/sources.md 1.1), so a closed loop of one
// completes one read per 546 ns.
func TestClosedLoopOfOneReadRunsAtTheRoundTrip(t *testing.T) {
	r := runSrc(t, "adapter: {preset: nfp6000-e5}\nrun: {warmup_us: 1, duration_us: 100}\ngenerators: [{name: rd, kind: dma_read, size_bytes: 64}]\n")
	g := r.Points[0].Generators[0]
	require.InDelta(t, 546, g.LatencyNS.P50, 4, "the median of ~180 reads of the host's spread (docs/sources.md 1.1)")
	require.InDelta(t, 1000/546.0, g.ThroughputMops, 0.02)
	require.Equal(t, "duration", r.Points[0].StopReason)
	require.False(t, r.Partial)
}

func TestClosedLoopKeepsOutstandingPerStream(t *testing.T) {
	one := runSrc(t, "run: {duration_us: 50}\ngenerators: [{kind: dma_read, outstanding: 1}]\n").Points[0].Generators[0]
	four := runSrc(t, "run: {duration_us: 50}\ngenerators: [{kind: dma_read, streams: 2, outstanding: 2}]\n").Points[0].Generators[0]
	require.InDelta(t, 4, four.ThroughputMops/one.ThroughputMops, 0.1, "4 in flight: 4x the rate while latency-bound")
	require.Equal(t, 4, four.InFlightAtEnd)
}

func TestOpenLoopFixedRateIsMet(t *testing.T) {
	r := runSrc(t, "run: {duration_us: 200}\ngenerators: [{kind: dma_write, size_bytes: 256, outstanding: 8, arrival: {process: fixed, rate_mops: 5}}]\n")
	g := r.Points[0].Generators[0]
	require.InDelta(t, 5, g.ThroughputMops, 0.05)
	require.Zero(t, g.Dropped)
	p := runSrc(t, "run: {duration_us: 200}\ngenerators: [{kind: dma_write, size_bytes: 256, outstanding: 8, arrival: {rate_mops: 5}}]\n").Points[0].Generators[0]
	require.InDelta(t, 5, p.ThroughputMops, 0.5, "Poisson arrivals at the same mean rate")
	require.Greater(t, p.LatencyNS.Max, g.LatencyNS.Max, "Poisson bursts queue")
}

func TestOpenLoopOverloadFillsBacklogAndDrops(t *testing.T) {
	r := runSrc(t, "run: {duration_us: 50}\ngenerators: [{kind: dma_read, outstanding: 1, arrival: {process: fixed, rate_mops: 100, backlog_max: 10}}]\n")
	g := r.Points[0].Generators[0]
	require.Greater(t, g.Dropped, uint64(1000))
	require.Greater(t, g.LatencyNS.P50, 5000.0, "latency counts from arrival, including the backlog")
}

func TestWarmupIsExcludedFromStatistics(t *testing.T) {
	r := runSrc(t, "run: {warmup_us: 0, duration_us: 10}\ngenerators: [{kind: dma_read}]\n")
	w := runSrc(t, "run: {warmup_us: 40, duration_us: 10}\ngenerators: [{kind: dma_read}]\n")
	require.InDelta(t, float64(r.Points[0].Generators[0].Completed), float64(w.Points[0].Generators[0].Completed), 1)
	require.Equal(t, uint64(10*sim.US), w.Points[0].WindowPS)
}

func TestOpsStopsTheRunWhenEveryGeneratorIsDone(t *testing.T) {
	r := runSrc(t, "run: {ops: 300}\ngenerators: [{kind: dma_read, outstanding: 4}, {kind: dma_write, outstanding: 2}]\n")
	p := r.Points[0]
	require.Equal(t, "ops", p.StopReason)
	for _, g := range p.Generators {
		require.Equal(t, uint64(300), g.Completed)
	}
	require.Less(t, p.SimTimePS, uint64(100*sim.US))
}

func TestUnfinishedOpsRunStopsAtSimTimeMaxAndIsPartial(t *testing.T) {
	r := runSrc(t, "run: {ops: 100000000, warmup_us: 0, sim_time_max_us: 20}\ngenerators: [{kind: dma_read}]\n")
	require.True(t, r.Partial)
	require.Equal(t, "sim_time_max", r.Points[0].StopReason)
}

// TestInterruptStopsAtTheNextSliceMarkedPartial: an interrupt seen after
// the fourth slice stops the run there. The four slices are at most 10,
// 20, 40 and 80 µs long (each at most twice the one before), so the run
// stops within 150 µs of its 1000 µs (its setup takes under 1 µs).
func TestInterruptStopsAtTheNextSliceMarkedPartial(t *testing.T) {
	f := load(t, "run: {duration_us: 1000}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: [1, 2, 3]}\n")
	polls := 0
	r, err := RunFile(f, RunOptions{Interrupted: func() bool { polls++; return polls > 3 }})
	require.NoError(t, err)
	require.True(t, r.Partial)
	require.Len(t, r.Points, 1, "the remaining points are skipped")
	require.Equal(t, "interrupted", r.Points[0].StopReason)
	require.LessOrEqual(t, r.Points[0].SimTimePS, uint64(15*SliceFirst+sim.US))
}

func TestTranslateFailuresAreCountedByReason(t *testing.T) {
	r := runSrc(t, "run: {duration_us: 5}\nregions: [{name: ro, pages: 16, rights: [remote_read]}]\n"+
		"generators: [{kind: translate, region: ro, access: remote_write, outstanding: 4}]\n")
	g := r.Points[0].Generators[0]
	require.Equal(t, g.Completed, g.Failed)
	require.Equal(t, []results.ReasonCount{{Reason: "no-remote-write", Count: g.Failed}}, g.Failures)
}

// The built-in cliff workload, cut short: the plateau below the MTT cache's
// reach (16 MiB) is the 1/cycle port limit; 4x past it, a few percent of it.
func TestTranslationReachCliffWorkloadShowsTheCliff(t *testing.T) {
	f, err := workloads.Load("../translation-reach-cliff.yaml", workloads.Options{Sets: []string{"run.ops=1500"}})
	require.NoError(t, err)
	f.Points = []*workloads.Workload{f.Points[1], f.Points[len(f.Points)-1]}
	r, err := RunFile(f, RunOptions{})
	require.NoError(t, err)
	below, above := r.Points[0], r.Points[1]
	require.InDelta(t, 1000, below.Generators[0].ThroughputMops, 40)
	require.Equal(t, 1.0, below.MTT.MTTHitRate)
	require.Less(t, above.Generators[0].ThroughputMops, 50.0)
	require.Less(t, above.MTT.MTTHitRate, 0.1)
	require.Greater(t, above.PCIe.DownUtilization, 0.2, "misses read ICM over PCIe")
}

func TestSameFileAndSeedGiveByteIdenticalResults(t *testing.T) {
	run := func(seed uint64) []byte {
		f, err := workloads.Load("../testdata/full.yaml", workloads.Options{Seed: &seed})
		require.NoError(t, err)
		r, err := RunFile(f, RunOptions{})
		require.NoError(t, err)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return b
	}
	a := run(3)
	require.Equal(t, string(a), string(run(3)))
	require.NotEqual(t, string(a), string(run(4)), "the seed matters (Poisson-free file, but random sizes and offsets)")
}

// A kind registered from outside the loader, with its source: nothing else
// changes to make it loadable, runnable and measured.
type fixedLatency struct {
	eng *sim.Engine
	ps  sim.Tick
}

func (f *fixedLatency) Start(now sim.Tick, op *Op, done Done) error {
	op.Bytes = 1
	f.eng.After(f.ps, sim.PrioDefault, done, op.Index)
	return nil
}

type fixedParams struct {
	LatencyNS uint64 `yaml:"latency_ns" json:"latency_ns" check:"1..1000000"`
}

func TestKindRegisteredFromOutsidePlugsIn(t *testing.T) {
	if _, ok := workloads.LookupKind("test_fixed"); !ok {
		workloads.RegisterKind(workloads.Kind{Name: "test_fixed", Summary: "test: completes after latency_ns",
			Params: func() any { return &fixedParams{LatencyNS: 100} }})
		RegisterSource("test_fixed", func(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
			return &fixedLatency{eng: m.Env.Engine, ps: sim.Tick(g.Params.(*fixedParams).LatencyNS) * sim.NS}, nil
		})
	}
	r := runSrc(t, "run: {duration_us: 10, warmup_us: 0}\ngenerators: [{kind: test_fixed, latency_ns: 250, outstanding: 2}]\n")
	g := r.Points[0].Generators[0]
	require.Equal(t, 250.0, g.LatencyNS.P99)
	require.Equal(t, uint64(80), g.Completed)
	require.Contains(t, loadErr(t, "run: {duration_us: 1}\ngenerators: [{kind: test_fixed, latency_ns: 0}]\n"),
		"generators.0.latency_ns: 0 is out of range 1..1000000")
}

func TestBuiltinWorkloadsLoadAndRunShort(t *testing.T) {
	files, err := filepath.Glob("../*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if scenario.IsFile(f) {
			continue // the scenario package runs the built-in scenarios
		}
		t.Run(f, func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			full, err := workloads.LoadBytes(f, src, workloads.Options{})
			require.NoError(t, err)
			// 100 µs: a DMA-fetched FastRegister chain at 128 in flight takes ~70 µs.
			sets := []string{"run.warmup_us=2", "run.duration_us=100", "run.ops=0"}
			if full.Points[0].Run.Ops > 0 {
				sets = []string{"run.ops=100"}
			}
			if strings.HasSuffix(f, "scale.yaml") {
				sets = append(sets, "generators.fr-inv.streams=256") // make scale runs it whole
			}
			short, err := workloads.LoadBytes(f, src, workloads.Options{Sets: sets})
			require.NoError(t, err)
			r, err := RunFile(short, RunOptions{})
			require.NoError(t, err)
			require.False(t, r.Partial)
			for _, p := range r.Points {
				for _, g := range p.Generators {
					require.NotZero(t, g.Completed, "%s %s", p.Label, g.Name)
				}
			}
		})
	}
}
