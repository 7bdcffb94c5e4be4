package traffic

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/nicsim/nicsim/workloads"
)

// The whole-simulator benchmarks: each iteration runs one point of a
// committed workload end to end (setup, warm-up, the measured window, the
// result), as `nicsim run` does without writing files. Besides Go's ns/op
// (one whole run) each reports:
//
//   - ns/req: wall nanoseconds of the whole run per simulated work request
//     completed in the measured window (a FastRegister, an Invalidate, a
//     Bind, an RDMA Write or Read, a RegisterMr or a DeregisterMr counts
//     one);
//   - events/req: engine events of the whole run per such request;
//   - ns/event: wall nanoseconds per engine event;
//   - allocs/req: heap allocations of the whole run per request;
//   - peak-live-MiB: the largest live Go heap (bytes in objects that a
//     full collection keeps) between the run's slices of simulated time
//     and at its end, the model still held, measured in one more run after
//     the timed ones: the memory the model needs. It does not depend on
//     when the collector happens to run, as the heap with its garbage
//     does; `nicsim run` reports the process's peak resident set, which
//     adds the collector's headroom, in meta.json.
//
// `make bench` runs them with the kernel's, PCIe's and MTT's benchmarks;
// `make bench-compare` compares a run with results/bench/baseline.txt
// (docs/kernel.md, "Speed is tracked").

// wholeLoad is one whole-simulator load: a point of a committed workload
// file, chosen by pick, with the overrides sets.
type wholeLoad struct {
	path string
	pick func(*workloads.Workload) bool
	sets []string
}

// The loads of the whole-simulator benchmarks.
var (
	// quickstartLoad is workloads/quickstart.yaml as committed: 16 QPs x 8
	// FastRegister+Invalidate chains, 1 ms.
	quickstartLoad = wholeLoad{"../quickstart.yaml", func(*workloads.Workload) bool { return true }, nil}
	// bindLoad is workloads/bind-rate-vs-qps.yaml at 16 QPs (where the
	// upstream link saturates), 1 ms.
	bindLoad = wholeLoad{"../bind-rate-vs-qps.yaml", func(w *workloads.Workload) bool { return w.Generators[0].Streams == 16 }, nil}
	// rdmaLoad is workloads/rdma-read-write.yaml at 64 B: two hosts, RDMA
	// Writes and Reads, 4 QPs x 4 outstanding each, for 1 ms instead of
	// 200 µs, so that the figures per request do not rest on building the
	// model (two adapters' tables) alone.
	rdmaLoad = wholeLoad{"../rdma-read-write.yaml", func(w *workloads.Workload) bool {
		return w.Generators[0].Params.(*workloads.RDMAParams).SizeBytes.Largest() == 64
	}, []string{"run.duration_us=1000"}}
	// registerLoad is workloads/registermr-latency-vs-size.yaml at 16
	// pages (RegisterMr then DeregisterMr, one at a time) with 2000
	// operations instead of 20, for the same reason.
	registerLoad = wholeLoad{"../registermr-latency-vs-size.yaml", func(w *workloads.Workload) bool {
		return w.Generators[0].Params.(*workloads.RegisterMRParams).Pages.Largest() == 16
	}, []string{"run.ops=2000"}}
)

// point loads l's file with its overrides and more, and returns the
// point l picks.
func (l wholeLoad) point(tb testing.TB, more ...string) *workloads.Workload {
	tb.Helper()
	f, err := workloads.Load(l.path, workloads.Options{Sets: append(append([]string(nil), l.sets...), more...)})
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range f.Points {
		if l.pick(p) {
			return p
		}
	}
	tb.Fatalf("%s: no point to run", l.path)
	return nil
}

func BenchmarkWholeQuickstart(b *testing.B) { benchWhole(b, quickstartLoad) }

func BenchmarkWholeBind(b *testing.B) { benchWhole(b, bindLoad) }

func BenchmarkWholeRDMA(b *testing.B) { benchWhole(b, rdmaLoad) }

func BenchmarkWholeRegister(b *testing.B) { benchWhole(b, registerLoad) }

// benchWhole runs the point of load b.N times and reports the figures per
// request.
func benchWhole(b *testing.B, load wholeLoad) {
	w := load.point(b)
	var reqs, events uint64
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for range b.N {
		p, err := RunPoint(w, RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		reqs += p.WorkRequests()
		events += p.Events
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	if reqs == 0 {
		b.Fatal("no request completed")
	}
	live := newLivePeak()
	runtime.GC()
	if _, err := RunPoint(w, RunOptions{Progress: live.sample}); err != nil {
		b.Fatal(err)
	}
	n := float64(reqs)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/req")
	b.ReportMetric(float64(events)/n, "events/req")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(events, 1)), "ns/event")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/req")
	b.ReportMetric(float64(live.peak)/(1<<20), "peak-live-MiB")
}

// livePeak keeps the largest live heap it has sampled: bytes in objects
// just after a full collection. A sample first reads the heap as it is, a
// microsecond: the live heap is no larger than that, so only a heap above
// the peak so far costs a collection. A run that allocates nothing in
// steady state then collects a few times while it builds its model, and
// the peak is the same from run to run.
type livePeak struct {
	s    []metrics.Sample
	peak uint64
}

func newLivePeak() *livePeak {
	return &livePeak{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

// sample measures the live heap now, when it can exceed the peak; its
// argument (a Progress fraction) is not used.
func (h *livePeak) sample(float64) {
	if metrics.Read(h.s); h.s[0].Value.Uint64() <= h.peak {
		return
	}
	runtime.GC()
	metrics.Read(h.s)
	h.peak = max(h.peak, h.s[0].Value.Uint64())
}
