package workloads

import (
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// cqConsumer handles one result a drain takes from a CQ; returning false
// stops the drain (the run has failed).
type cqConsumer interface {
	result(now sim.Tick, r *nic.Result) bool
}

// drainCQ is a consumer spinning on a CQ, run from the CQ's visible hook: it
// polls cq into buf until the CQ is empty and hands every result to c, in
// order. It allocates nothing.
func drainCQ(now sim.Tick, a *nic.Adapter, cq *nic.CQ, buf []nic.Result, c cqConsumer) {
	for {
		n := a.PollCQ(cq, buf)
		for i := 0; i < n; i++ {
			r := buf[i]
			if !c.result(now, &r) {
				return
			}
		}
		if n < len(buf) {
			return
		}
	}
}
