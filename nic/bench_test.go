package nic

import "testing"

// BenchmarkFastRegisterInvalidatePair runs b.N FastRegister+Invalidate pairs
// on 16 QPs (inline page lists) through the whole model, PCIe included.
func BenchmarkFastRegisterInvalidatePair(b *testing.B) {
	h := newHarness(b, DefaultSpec())
	d := newFRDriver(b, h, 16, 8, 1, uint64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	d.start()
	h.run()
	b.StopTimer()
	if d.done != uint64(b.N) {
		b.Fatalf("done %d of %d", d.done, b.N)
	}
	b.ReportMetric(float64(h.env.Engine.Executed())/float64(b.N), "events/pair")
}
