package nic

import "github.com/nicsim/nicsim/sim"

// parse is the WQE decode stage: the request's fields are in its SQ slot
// already (qp.go), so the stage is its time, Parse.LatencyCycles.
type parse struct{}

func newParse(a *Adapter, e *engine) *stage {
	return a.newStage(e.prefix, "Parse", a.spec.Parse, parse{}, 0)
}

func (parse) accept(*stage, item, sim.Tick) acceptResult { return acceptSync }
