package sim

import (
	"fmt"
	"math/rand/v2"
)

// PHOLD is the classic synthetic engine benchmark (Fujimoto 1990): N logical
// processes each start with M events at exponentially distributed times; each
// event, when handled, schedules one new event at now + exp(mean) on a
// uniformly chosen process. The pending population stays N*M.
type PHOLD struct {
	eng    *Engine
	rng    *rand.Rand
	lps    []pholdLP
	meanPS float64
	limit  uint64
	count  uint64
}

type pholdLP struct {
	p       *PHOLD
	handled uint64
}

func (lp *pholdLP) Handle(now Tick, _ uint64) {
	p := lp.p
	lp.handled++
	dst := &p.lps[p.rng.IntN(len(p.lps))]
	p.eng.After(Tick(p.rng.ExpFloat64()*p.meanPS), PrioDefault, dst, 0)
	p.count++
	if p.count >= p.limit {
		p.eng.Stop() // the population stays N*M across Run calls
	}
}

// NewPHOLD builds the model on a fresh engine. mean is the mean event spacing
// per process (1 us in the standard configuration).
func NewPHOLD(n, m int, mean Tick, seed uint64) (*PHOLD, error) {
	return newPHOLD(NewEngine(), n, m, mean, seed)
}

func newPHOLD(eng *Engine, n, m int, mean Tick, seed uint64) (*PHOLD, error) {
	if n < 1 || m < 1 {
		return nil, fmt.Errorf("sim: PHOLD needs n >= 1 and m >= 1, got n=%d m=%d", n, m)
	}
	if n*m > 1<<28 {
		return nil, fmt.Errorf("sim: PHOLD n*m = %d is above the bound of %d pending events", n*m, 1<<28)
	}
	p := &PHOLD{eng: eng, rng: Stream(seed, "PHOLD"), meanPS: float64(mean)}
	p.lps = make([]pholdLP, n)
	for i := range p.lps {
		p.lps[i].p = p
		for j := 0; j < m; j++ {
			p.eng.After(Tick(p.rng.ExpFloat64()*p.meanPS), PrioDefault, &p.lps[i], 0)
		}
	}
	return p, nil
}

// Run handles events more events and returns the number handled.
func (p *PHOLD) Run(events uint64) uint64 {
	start := p.count
	p.limit = p.count + events
	p.eng.Run()
	return p.count - start
}

// Engine exposes the model's engine (for its statistics).
func (p *PHOLD) Engine() *Engine { return p.eng }

// Handled returns per-process event counts, for determinism checks.
func (p *PHOLD) Handled() []uint64 {
	out := make([]uint64, len(p.lps))
	for i := range p.lps {
		out[i] = p.lps[i].handled
	}
	return out
}
