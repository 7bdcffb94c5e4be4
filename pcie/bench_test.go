package pcie

import (
	"fmt"
	"testing"
	"time"

	"github.com/nicsim/nicsim/sim"
)

// BenchmarkLinkSaturated drives a saturated gen3 x8 link (IdealSpec, so
// nothing but the link limits it) and reports TLPs per wall-clock second,
// counting both directions. One op is one DMA transfer.
func BenchmarkLinkSaturated(b *testing.B) {
	for _, c := range []struct {
		dir  Direction
		size uint64
	}{{DirRdWr, 64}, {DirWrite, 256}, {DirRead, 4096}} {
		b.Run(fmt.Sprintf("%s-%dB", c.dir, c.size), func(b *testing.B) {
			spec := IdealSpec(DefaultSpec())
			env := sim.NewEnv(1)
			l, err := New("pcie", spec, env, rnicClock)
			if err != nil {
				b.Fatal(err)
			}
			d := &streamDriver{dma: l.DMA(), eng: env.Engine,
				cfg: StreamConfig{Dir: c.dir, SizeBytes: c.size, Outstanding: 64, Warmup: 1 << 62, Measure: 1}}
			l.DMA().AddWaker(d)
			d.fill()
			for d.completed < 10000 { // every ring and slab reaches its steady size
				env.Engine.Step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			tlps0 := l.Stats().Up.TLPCount() + l.Stats().Down.TLPCount()
			target := d.completed + b.N
			for d.completed < target {
				env.Engine.Step()
			}
			el := time.Since(start)
			tlps := l.Stats().Up.TLPCount() + l.Stats().Down.TLPCount() - tlps0
			b.ReportMetric(float64(tlps)/el.Seconds(), "TLPs/s")
			b.ReportMetric(float64(tlps)/float64(b.N), "TLPs/op")
		})
	}
}
