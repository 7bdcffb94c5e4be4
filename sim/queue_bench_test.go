package sim

import (
	"fmt"
	"testing"
)

type nopHandler struct{}

func (nopHandler) Handle(Tick, uint64) {}

// BenchmarkQueueHold is the classic hold model on the bare queue: pop the
// smallest entry, push one at its time plus a drawn increment, with a constant
// population; every queue of benchQueues in one process (alternate). "exp"
// draws exponential increments (mean 1 us, as PHOLD); "clock" draws what a
// clocked model schedules: zero, one or a few 1 ns cycles under the named
// priorities, so that many entries share a tick.
func BenchmarkQueueHold(b *testing.B) {
	rng := Stream(1, "hold")
	exp := make([]Tick, holdIncs)
	clock := make([]Tick, holdIncs)
	prio := make([]Priority, holdIncs)
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
		for _, size := range []int{8, 64, 192, 512, 4096, 32768, 1 << 20} {
			b.Run(fmt.Sprintf("%s/n=%d", dist, size), func(b *testing.B) {
				runs := make([]func(k int), len(benchQueues))
				for i, bq := range benchQueues {
					h := &hold{q: bq.mk(), inc: inc, prio: prio}
					h.fill(size)
					h.run(4 * size)
					runs[i] = h.run
				}
				alternate(b, runs)
			})
		}
	}
}

const holdIncs = 1 << 16 // drawn increments, used in turn

// hold is one queue under the hold model.
type hold struct {
	q    queue
	inc  []Tick
	prio []Priority
	seq  uint64
	i    int
}

func (h *hold) next(at Tick) event {
	h.seq++
	h.i = (h.i + 1) % holdIncs
	return event{at: at + h.inc[h.i], ord: uint64(h.prio[h.i])<<seqBits | h.seq, h: nopHandler{}}
}

func (h *hold) fill(n int) {
	for range n {
		h.q.push(h.next(0))
	}
}

func (h *hold) run(k int) {
	for range k {
		h.q.push(h.next(h.q.pop().at))
	}
}
