package sim

import (
	"fmt"
	"testing"
	"time"
)

func BenchmarkPHOLD(b *testing.B) {
	for _, c := range []struct{ n, m int }{{1000, 10}, {10000, 100}} {
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
