package nic

import (
	"fmt"
	"github.com/nicsim/nicsim/mtt"

	"github.com/nicsim/nicsim/sim"
)

// engine is one execution engine (processing unit): an in-order chain of
// stages parse -> validate -> page-list fetch -> MTT write -> MPT update ->
// cache write, whose last stage feeds the completion engine.
type engine struct {
	idx        uint32
	parse      *stage
	validate   *stage
	pageList   *stage
	mttWrite   *stage
	mptUpdate  *stage
	cacheWrite *stage
	out        *sim.Port[item] // to the completion engine
	mptReq     []mtt.Request   // validate's MPT reads, by in-flight slot
}

// build wires the pipeline: doorbell -> scheduler -> WQE fetch -> engines ->
// completion.
func (a *Adapter) build() error {
	sp := &a.spec
	a.doorbell = newStage(a, stDoorbell, nil, a.name+".Doorbell", sp.Doorbell, 0, &a.Stats.Stages[stDoorbell])
	a.sched = newScheduler(a)
	a.completion = newCompletion(a)
	for i := uint32(0); i < sp.ExecEngines; i++ {
		p := fmt.Sprintf("%s.Engine[%d].", a.name, i)
		e := &engine{idx: i}
		e.parse = newStage(a, stParse, e, p+"Parse", sp.Parse, 0, &a.Stats.Stages[stParse])
		e.validate = newStage(a, stValidate, e, p+"Validate", sp.Validation, 0, &a.Stats.Stages[stValidate])
		e.mptReq = make([]mtt.Request, len(e.validate.fl))
		e.pageList = newStage(a, stPageList, e, p+"PageList", sp.PageList, int(sp.PageListFetchesMax), &a.Stats.Stages[stPageList])
		e.mttWrite = newStage(a, stMTTWrite, e, p+"MTTWrite", sp.MTTWrite, 0, &a.Stats.Stages[stMTTWrite])
		e.mptUpdate = newStage(a, stMPTUpdate, e, p+"MPTUpdate", sp.MPTUpdate, 0, &a.Stats.Stages[stMPTUpdate])
		e.cacheWrite = newStage(a, stCacheWrite, e, p+"CacheWrite", sp.CacheWrite, 0, &a.Stats.Stages[stCacheWrite])
		e.out = sim.MustNewPort[item](p+"ToCompletion", a.eng, int(sp.Completion.QueueDepth), a.clock.Period)
		chain := []*stage{e.parse, e.validate, e.pageList, e.mttWrite, e.mptUpdate, e.cacheWrite}
		for j, s := range chain {
			if j+1 < len(chain) {
				s.connectOut(chain[j+1].in)
				chain[j+1].in.Connect(s.drv, chain[j+1].drv)
			}
		}
		e.cacheWrite.connectOut(e.out)
		e.out.Connect(e.cacheWrite.drv, a.completion.drv)
		a.engines = append(a.engines, e)
	}
	a.doorbell.in.Connect(nil, a.doorbell.drv)
	a.fetch = newWQEFetch(a)
	for _, e := range a.engines { // every stage's input: sender and receiver
		e.parse.in.Connect(a.fetch.drv, e.parse.drv)
	}
	return nil
}

// accept starts a stage's work on m.
func (a *Adapter) accept(s *stage, m item, now sim.Tick) acceptResult {
	if s.kind == stDoorbell {
		return acceptSync
	}
	qp := a.qps[m.qp]
	w := qp.slot(m.idx)
	switch s.kind {
	case stParse:
		return acceptSync
	case stValidate:
		return a.validate(s, qp, w, now)
	case stPageList:
		return a.pageListFetch(s, qp, m, w)
	case stMTTWrite:
		return a.mttWrite(w)
	case stMPTUpdate:
		return a.mptUpdate(s.eng, w, m.idx, now)
	case stCacheWrite:
		return acceptSync
	}
	panic(fmt.Sprintf("nic: stage kind %d has no work", s.kind))
}

// sink consumes an item leaving a stage with no output port.
func (a *Adapter) sink(s *stage, m item, now sim.Tick) {
	if s.kind == stDoorbell {
		a.doorbellApply(m, now)
		return
	}
	panic(fmt.Sprintf("nic: %s has no output", s.name))
}
