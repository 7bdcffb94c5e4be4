package sim

import (
	"fmt"
	"testing"
)

type nopHandler struct{}

func (nopHandler) Handle(Tick, uint64) {}

// BenchmarkQueueHold is the classic hold model on the bare queue: pop the
// smallest entry, push one at its time plus a drawn increment, with a constant
// population. "exp" draws exponential increments (mean 1 us, as PHOLD);
// "clock" draws what a clocked model schedules: zero, one or a few 1 ns
// cycles, under the named priorities, so many entries tie in time.
func BenchmarkQueueHold(b *testing.B) {
	rng := Stream(1, "hold")
	const nInc = 1 << 16
	exp := make([]Tick, nInc)
	clock := make([]Tick, nInc)
	prio := make([]Priority, nInc)
	prios := []Priority{PrioDeliver, PrioWake, PrioTick, PrioDefault}
	for i := range exp {
		exp[i] = Tick(rng.ExpFloat64() * float64(US))
		clock[i] = Tick(rng.IntN(4)) * NS
		prio[i] = prios[rng.IntN(len(prios))]
	}
	for _, dist := range []string{"exp", "clock"} {
		inc := exp
		if dist == "clock" {
			inc = clock
		}
		for _, size := range []int{8, 64, 512, 4096, 32768, 1 << 20} {
			for _, bq := range benchQueues {
				b.Run(fmt.Sprintf("%s/n=%d/%s", dist, size, bq.name), func(b *testing.B) {
					q := bq.mk()
					var seq uint64
					var h nopHandler
					for i := 0; i < size; i++ {
						seq++
						q.push(event{at: inc[i%nInc], ord: uint64(prio[i%nInc])<<seqBits | seq, h: h})
					}
					for i := 0; i < 4*size; i++ {
						ev := q.pop()
						seq++
						q.push(event{at: ev.at + inc[i%nInc], ord: uint64(prio[i%nInc])<<seqBits | seq, h: h})
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						ev := q.pop()
						seq++
						j := i % nInc
						q.push(event{at: ev.at + inc[j], ord: uint64(prio[j])<<seqBits | seq, h: h})
					}
				})
			}
		}
	}
}
