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
	benchStreams(b, IdealSpec(DefaultSpec()), rnicClock, false)
}

// BenchmarkLinkRealistic drives the pcie-bench configuration with every
// host effect on (latency spread, LLC misses, remote NUMA, write
// visibility, the IOMMU over a window beyond its reach) at random
// addresses: the engine's cycles, the host's draws and the IOTLB on the hot
// path.
func BenchmarkLinkRealistic(b *testing.B) {
	spec := NFP6000Spec()
	spec.HostLLCMissFraction, spec.HostRemoteNUMAFraction, spec.IOMMU = 0.5, 0.5, true
	benchStreams(b, spec, nfpClock, true)
}

func benchStreams(b *testing.B, spec Spec, clock sim.ClockDomain, random bool) {
	for _, c := range []struct {
		dir  Direction
		size uint64
	}{{DirRdWr, 64}, {DirWrite, 256}, {DirRead, 4096}} {
		b.Run(fmt.Sprintf("%s-%dB", c.dir, c.size), func(b *testing.B) {
			env := sim.NewEnv(1)
			l, err := New("pcie", spec, env, clock)
			if err != nil {
				b.Fatal(err)
			}
			d := &streamDriver{dma: l.DMA(), eng: env.Engine, env: env, rng: env.Stream("stream.addresses"),
				cfg: StreamConfig{Dir: c.dir, SizeBytes: c.size, Outstanding: 64, WarmupTransfers: 1 << 62, MeasureTransfers: 1,
					WindowBytes: 16 << 20, Random: random}}
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
