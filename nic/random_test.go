package nic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/sim/simtest"
)

// TestRandomPostsKeepCompletionRules posts random FastRegister/Invalidate
// requests (random flags, page counts, DEFER, inline failures, flushes and
// a few deliberate error completions) on several QPs over two engines, and
// checks the completion rules on the results: every success produces
// exactly one CQE unless it was a silent success (rules 3, 5), CQEs of a
// QP come in post order, and after the first error or flush every later
// request of the QP is STATUS_CANCELLED (5.1, rule 8). A QP that went to
// error is replaced by a new one with new MRs.
func TestRandomPostsKeepCompletionRules(t *testing.T) {
	seed := simtest.Seed(t, 7)
	rng := sim.Stream(seed, "random-posts")
	sp := DefaultSpec()
	sp.ExecEngines = 2
	sp.WQEByMMIO = rng.IntN(2) == 0
	sp.RotateFastRegisterKey = rng.IntN(2) == 0
	h := newHarness(t, sp)
	type post struct {
		ctx    uint64
		silent bool
	}
	type lane struct {
		qp    *QP
		mrs   [2]*MR
		valid [2]bool // state once every posted request has executed
		dead  bool    // flushed or sent a deliberate error
	}
	posted := map[uint64][]post{} // by QPContext
	firstWrong := map[uint64]uint64{}
	firstFlush := map[uint64]uint64{}
	newLane := func() *lane {
		l := &lane{qp: h.qp(32)}
		l.mrs[0], l.mrs[1] = h.frmr(16, true), h.frmr(16, true)
		return l
	}
	lanes := []*lane{newLane(), newLane(), newLane(), newLane()}
	var results []Result
	ctx := uint64(0)
	for step := 0; step < 4000; step++ {
		li := rng.IntN(len(lanes))
		l := lanes[li]
		m := rng.IntN(2)
		var f OpFlags
		if rng.IntN(4) == 0 {
			f |= OpSilentSuccess
		}
		if rng.IntN(3) == 0 {
			f |= OpDefer
		}
		ctx++
		var st Status
		wrong := rng.IntN(200) == 0 // a deliberate error completion
		switch r := rng.IntN(100); {
		case r < 96:
			if l.valid[m] != wrong {
				st = h.a.Invalidate(l.qp, ctx, l.mrs[m], f)
			} else {
				n := 1 + rng.IntN(16)
				st = h.a.FastRegister(l.qp, ctx, l.mrs[m], pages(n), 0, uint64(n)*PageSizeBytes, 0, f|OpAllowRemoteRead)
			}
			if st == StatusSuccess {
				l.valid[m] = !l.valid[m]
				l.dead = l.dead || wrong
				if _, ok := firstWrong[l.qp.ctx]; wrong && !ok {
					firstWrong[l.qp.ctx] = ctx
				}
			}
		case r < 98:
			st = h.a.FastRegister(l.qp, ctx, l.mrs[m], pages(1), 1, 10, 0, f) // rule 39: inline failure
			require.Equal(t, StatusInvalidParameter, st)
		default:
			require.Equal(t, StatusSuccess, h.a.Flush(l.qp))
			l.dead = true
			if _, ok := firstFlush[l.qp.ctx]; !ok {
				firstFlush[l.qp.ctx] = ctx
			}
			continue
		}
		if st == StatusSuccess {
			posted[l.qp.ctx] = append(posted[l.qp.ctx], post{ctx, f&OpSilentSuccess != 0})
		} else {
			require.Contains(t, []Status{StatusNoMoreEntries, StatusInvalidParameter}, st)
		}
		if l.dead && rng.IntN(5) == 0 {
			h.a.ring(l.qp)
			lanes[li] = newLane()
		}
		h.env.Engine.RunUntil(h.env.Engine.Now() + sim.Tick(rng.IntN(400))*sim.NS)
		results = append(results, h.poll()...)
	}
	for _, qp := range h.a.qps {
		h.a.ring(qp) // end every open chain (rule 14)
	}
	h.run()
	results = append(results, h.poll()...)

	count := map[Status]int{}
	byQP := map[uint64][]Result{}
	for _, r := range results {
		count[r.Status]++
		byQP[r.QPContext] = append(byQP[r.QPContext], r)
	}
	t.Logf("%d QPs, %d results: %d success, %d cancelled, %d error", len(h.a.qps), len(results), count[StatusSuccess],
		count[StatusCancelled], len(results)-count[StatusSuccess]-count[StatusCancelled])
	require.Greater(t, count[StatusSuccess], len(results)/3)
	before := func(m map[uint64]uint64, q, c uint64) bool {
		v, ok := m[q]
		return !ok || c < v
	}
	for _, r := range results {
		q, c := r.QPContext, r.RequestContext
		_, flushed := firstFlush[q]
		switch {
		case !before(firstFlush, q, c):
			require.Equal(t, StatusCancelled, r.Status, "QP %d ctx %d after a flush", q, c)
		case before(firstWrong, q, c) && !flushed:
			require.Equal(t, StatusSuccess, r.Status, "QP %d ctx %d before any error or flush", q, c)
		case before(firstWrong, q, c):
			require.Contains(t, []Status{StatusSuccess, StatusCancelled}, r.Status, "QP %d ctx %d", q, c)
		}
	}
	for qctx, ps := range posted {
		got := byQP[qctx]
		i := 0
		failed := false
		for _, p := range ps {
			if i < len(got) && got[i].RequestContext == p.ctx {
				if failed {
					require.Equal(t, StatusCancelled, got[i].Status, "QP %d ctx %d after an error", qctx, p.ctx)
				}
				if got[i].Status != StatusSuccess {
					failed = true
				}
				i++
				continue
			}
			require.True(t, p.silent && !failed, "QP %d: ctx %d has no CQE (silent %v, after error %v)", qctx, p.ctx, p.silent, failed)
		}
		require.Equal(t, len(got), i, "QP %d: CQEs out of post order or unexpected", qctx)
	}
}
