package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// pholdSizes are the benchmarked populations: N*M pending events. The first
// two are where a NIC model lives (a few to a few hundred pending events),
// the last two the standard PHOLD points.
var pholdSizes = []struct{ n, m int }{{16, 4}, {64, 2}, {1000, 10}, {10000, 100}}

// benchQueues are the queues BenchmarkPHOLDQueues compares; the first is the
// engine's own.
var benchQueues = []struct {
	name string
	mk   func() queue
}{
	{"engine", func() queue { return newEventQueue() }},
	{"heap4", func() queue { return &heap4Queue{} }},
}

func BenchmarkPHOLD(b *testing.B) {
	for _, c := range pholdSizes {
		b.Run(fmt.Sprintf("N=%d,M=%d", c.n, c.m), func(b *testing.B) {
			p, err := NewPHOLD(c.n, c.m, US, 1)
			if err != nil {
				b.Fatal(err)
			}
			// Warm up so the calendar has sized itself and the slab is grown.
			p.Run(uint64(4 * c.n * c.m))
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			p.Run(uint64(b.N))
			el := time.Since(start)
			b.ReportMetric(float64(b.N)/el.Seconds(), "events/s")
		})
	}
}

// BenchmarkPHOLDQueues runs the same PHOLD model on each queue of
// benchQueues in one process (alternate), reporting each queue's events/s and
// the engine queue's speed-up over each other queue (x<name>).
func BenchmarkPHOLDQueues(b *testing.B) {
	for _, c := range pholdSizes {
		b.Run(fmt.Sprintf("N=%d,M=%d", c.n, c.m), func(b *testing.B) {
			runs := make([]func(k int), len(benchQueues))
			for i, bq := range benchQueues {
				p, err := newPHOLD(&Engine{q: bq.mk()}, c.n, c.m, US, 1)
				if err != nil {
					b.Fatal(err)
				}
				p.Run(uint64(4 * c.n * c.m))
				runs[i] = func(k int) { p.Run(uint64(k)) }
			}
			alternate(b, runs)
		})
	}
}

// alternate runs b.N operations on each of runs (one per queue of
// benchQueues, engine first) in many short alternating rounds, so that load
// from other processes falls on all of them alike. It reports each queue's
// operations per second over all rounds and the engine queue's speed-up over
// each other queue (x<name>) as the median of the per-round ratios, which a
// burst of outside load in a few rounds does not move.
func alternate(b *testing.B, runs []func(k int)) {
	rounds := max(1, min(200, b.N/20_000))
	k := b.N / rounds
	total := make([]time.Duration, len(runs))
	ratio := make([][]float64, len(runs))
	b.ReportAllocs()
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		var el0 time.Duration
		for i, run := range runs {
			start := time.Now()
			run(k)
			el := time.Since(start)
			total[i] += el
			if i == 0 {
				el0 = el
			} else {
				ratio[i] = append(ratio[i], el.Seconds()/el0.Seconds())
			}
		}
	}
	ops := float64(rounds * k)
	for i, bq := range benchQueues {
		b.ReportMetric(ops/total[i].Seconds(), "ops/s-"+bq.name)
		if i > 0 {
			b.ReportMetric(median(ratio[i]), "x"+bq.name)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
