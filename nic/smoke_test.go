package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

func TestFastRegisterThenInvalidateCompletes(t *testing.T) {
	h, qp := newQP(t, 64)
	mr := h.frmr(16, true)
	t0 := h.env.Engine.Now()
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 7, mr, pages(4), 0, 4*PageSizeBytes, 0x10000, OpAllowRemoteWrite))
	h.run()
	t1 := h.env.Engine.Now()
	res := h.poll()
	require.Equal(t, []Result{{Status: StatusSuccess, QPContext: qp.ctx, RequestContext: 7, Type: OpFastRegister}}, res)
	e, _ := h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateValid, e.State)
	require.Equal(t, uint64(0x10000), e.BaseVA)
	t.Logf("FR latency %v", t1-t0)
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 8, mr, 0))
	h.run()
	res = h.poll()
	require.Equal(t, []Result{{Status: StatusSuccess, QPContext: qp.ctx, RequestContext: 8, Type: OpInvalidate}}, res)
	e, _ = h.a.TPT().Keys().Entry(mr.Index())
	require.Equal(t, mtt.StateInvalid, e.State)
}

type recTracer struct{ spans, phases int }

func (r *recTracer) Span(s *sim.Span)                                  { r.spans++; r.phases += len(s.Phases) }
func (r *recTracer) Instant(string, string, sim.Tick)                  {}
func (r *recTracer) Counter(string, string, string, sim.Tick, float64) {}

func TestTracingRecordsEveryRetiredRequest(t *testing.T) {
	h := newHarness(t, DefaultSpec())
	rt := &recTracer{}
	h.a.AddTracer(rt)
	qp := h.qp(8)
	mr := h.frmr(16, false)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(1), 0, pg, 0, OpSilentSuccess))
	require.Equal(t, StatusSuccess, h.a.Invalidate(qp, 2, mr, 0))
	h.run()
	require.Equal(t, 2, rt.spans)
	require.Equal(t, 8, rt.phases, "post->doorbell, ->fetched, ->executed, ->retired of each")
}
