package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// frDriver is a closed-loop consumer: every QP keeps mrsPerQP FastRegister +
// Invalidate pairs outstanding; when a pair's Invalidate completes, the pair
// is posted again, until pairs pairs have been posted. With chain set, the
// FastRegister is posted with DEFER, so each pair rings one doorbell. The
// consumer spins on the CQ (SetVisibleHook).
type frDriver struct {
	h        *harness
	qps      []*QP
	mrs      [][]*MR
	pages    []uint64
	length   uint64
	chain    bool
	pairs    uint64
	posted   uint64
	done     uint64
	perQP    []uint64 // pairs done, by QP
	failures uint64
	buf      [64]Result
}

func newFRDriver(t testing.TB, h *harness, nQPs, mrsPerQP, nPages int, pairs uint64) *frDriver {
	d := &frDriver{h: h, pages: pages(nPages), length: uint64(nPages) * PageSizeBytes, pairs: pairs, perQP: make([]uint64, nQPs)}
	for q := 0; q < nQPs; q++ {
		qp := h.qp(uint32(2 * mrsPerQP))
		d.qps = append(d.qps, qp)
		var ms []*MR
		for m := 0; m < mrsPerQP; m++ {
			ms = append(ms, h.frmr(uint32(max(nPages, 16)), true))
		}
		d.mrs = append(d.mrs, ms)
	}
	h.cq.SetVisibleHook(d, 0)
	return d
}

func (d *frDriver) start() {
	for m := range d.mrs[0] {
		for q := range d.qps {
			d.post(q, m)
		}
	}
}

func (d *frDriver) post(q, m int) {
	if d.posted >= d.pairs {
		return
	}
	d.posted++
	a := d.h.a
	ctx := uint64(q)<<32 | uint64(m)
	var f OpFlags = OpAllowRemoteWrite
	if d.chain {
		f |= OpDefer
	}
	if st := a.FastRegister(d.qps[q], ctx, d.mrs[q][m], d.pages, 0, d.length, 0, f); st != StatusSuccess {
		panic(st.String())
	}
	if st := a.Invalidate(d.qps[q], ctx, d.mrs[q][m], 0); st != StatusSuccess {
		panic(st.String())
	}
}

// Handle is the CQ hook: take results and repost finished pairs.
func (d *frDriver) Handle(now sim.Tick, arg uint64) {
	n := d.h.a.PollCQ(d.h.cq, d.buf[:])
	for _, r := range d.buf[:n] {
		if r.Status != StatusSuccess {
			d.failures++
		}
		if r.Type == OpInvalidate {
			d.done++
			d.perQP[r.RequestContext>>32]++
			d.post(int(r.RequestContext>>32), int(uint32(r.RequestContext)))
		}
	}
}

// runPairs runs the workload and returns FastRegister throughput (per
// second) and mean post-to-CQE latency (ns).
func runPairs(t testing.TB, spec Spec, nQPs, mrsPerQP, nPages int, pairs uint64, chain bool) (thr, latNS float64, h *harness) {
	h = newHarness(t, spec)
	d := newFRDriver(t, h, nQPs, mrsPerQP, nPages, pairs)
	d.chain = chain
	d.start()
	h.run()
	require.Equal(t, pairs, d.done)
	require.Zero(t, d.failures)
	o := &h.a.Stats.Ops[kindFastRegister]
	return Throughput(o), o.ToCQEPS.Mean() / 1000, h
}

// singleFRLatency is the post-to-CQE latency of one FastRegister of nPages
// pages on an idle adapter.
func singleFRLatency(t testing.TB, spec Spec, nPages int) sim.Tick {
	o := singleFR(t, spec, nPages)
	t.Logf("  post->doorbell %v, ->WQE fetched %v, ->executed %v, ->CQE %v", sim.Tick(o.ToDoorbellPS.Max()), sim.Tick(o.ToFetchedPS.Max()),
		sim.Tick(o.ToExecutedPS.Max()), sim.Tick(o.ToCQEPS.Max()))
	return sim.Tick(o.ToCQEPS.Max())
}

func singleFR(t testing.TB, spec Spec, nPages int) *OpStats {
	h := newHarness(t, spec)
	qp := h.qp(8)
	mr := h.frmr(uint32(max(nPages, 16)), true)
	require.Equal(t, StatusSuccess, h.a.FastRegister(qp, 1, mr, pages(nPages), 0, uint64(nPages)*PageSizeBytes, 0, OpAllowRemoteWrite))
	h.run()
	require.Len(t, h.poll(), 1)
	return &h.a.Stats.Ops[kindFastRegister]
}
