package nic

import (
	"bytes"
	"slices"
)

// The model-level fuzzer's reference model of docs/ndk.md section 5: what
// each accepted request may do, and the checks its completions and the
// final host memory must pass.

// Remote rights of a span, and those a request needs.
const (
	rightRead uint8 = 1 << iota
	rightWrite
)

// fzNever is a step no run reaches: a span still standing, a QP never
// dead.
const fzNever = int(^uint(0) >> 1)

// fzSpan is the life of one token value on one host as the model knows
// it: a registration, fast registration or bind that issued it, the range
// and remote rights it grants, the QP a window answers through (nil: any),
// and the steps between which it may have stood: from the call or post,
// to the completion that undid it (fzNever while it may stand). Bounds are
// generous (the earliest start, the latest end), so a request the model
// refuses is one no standing registration could have allowed.
type fzSpan struct {
	host     int
	tok      uint32
	lo, hi   uint64
	rights   uint8
	qp       *QP
	from, to int
	reg      *fzReq // the FastRegister or Bind that issued it (nil: a RegisterMr)
	done     int    // the step its success was seen (fzNever: not yet)
}

// before reports whether s's registration certainly took effect before
// the invalidation r executed: its success was seen before r was posted,
// or it was posted earlier on r's QP (executed in order). Only such spans
// does r end; another may have taken effect after r, on a new key.
func (s *fzSpan) before(r *fzReq) bool {
	return s.done < r.post || s.reg != nil && s.reg.q == r.q && s.reg.post < r.post
}

// endSpansBefore ends the spans of an object that invalidation r undid
// (before), at its completion, and keeps the others.
func endSpansBefore(spans []*fzSpan, r *fzReq) []*fzSpan {
	var keep []*fzSpan
	for _, s := range spans {
		if s.before(r) {
			s.to = min(s.to, r.doneSeq)
		} else {
			keep = append(keep, s)
		}
	}
	return keep
}

// fzRange is a range of a host's memory.
type fzRange struct {
	host  int
	va, n uint64
}

// fzReq is a request a post accepted.
type fzReq struct {
	ctx     uint64
	q       *fzQP
	op      OpType
	silent  bool
	post    int
	done    bool
	doneSeq int
	status  Status
	bytes   uint32
	land    fzRange // where its bytes land if it succeeds (Write: the peer; Read, receive: this host)
	src     []byte  // a Write's bytes
	remote  fzRange // the peer's range a Read or Write reaches
	tok     uint32  // its remote token
	need    uint8   // the right it needs there
	slot    int     // the source slot it reads (-1: none)
	localOK bool    // its local buffer is one its token allows (a failure is then the peer's)
	then    func(w *fzWorld, r *fzReq)
}

// openSpan records a token's new span, standing from this step.
func (w *fzWorld) openSpan(host int, tok uint32, lo, hi uint64, rights uint8, qp *QP) *fzSpan {
	s := &fzSpan{host: host, tok: tok, lo: lo, hi: hi, rights: rights, qp: qp, from: w.seq, to: fzNever, done: fzNever}
	w.spans = append(w.spans, s)
	return s
}

// endSpans ends the spans still standing at step seq and forgets them.
func endSpans(spans []*fzSpan, seq int) []*fzSpan {
	for _, s := range spans {
		s.to = min(s.to, seq)
	}
	return nil
}

// endToken ends the spans of token tok on host h that the remote
// invalidation r (a SendAndInvalidate) undid: a remote invalidation names
// a token, not an object.
func (w *fzWorld) endToken(h int, tok uint32, r *fzReq) {
	for _, s := range w.spans {
		if s.host == h && s.tok == tok && s.before(r) {
			s.to = min(s.to, r.doneSeq)
		}
	}
}

// accept records a request a post accepted (rule 3: it must complete).
func (w *fzWorld) accept(q *fzQP, ctx uint64, op OpType, flags OpFlags) *fzReq {
	r := &fzReq{ctx: ctx, q: q, op: op, silent: flags&OpSilentSuccess != 0 && op != OpReceive, post: w.seq, slot: -1}
	w.reqs[ctx] = r
	if op == OpReceive {
		q.recv = append(q.recv, r)
	} else {
		q.init = append(q.init, r)
	}
	return r
}

// completed checks one completion against the model.
func (w *fzWorld) completed(host int, res Result) {
	q := w.byCtx[res.QPContext]
	r := w.reqs[res.RequestContext]
	switch {
	case q == nil || q.host != host:
		w.fail("a completion on host %d names QP context %d, not a QP of that host", host, res.QPContext)
	case r == nil:
		w.fail("a completion (%v, %v) for request %d, which no post accepted", res.Type, res.Status, res.RequestContext)
	case r.done:
		w.fail("request %d (%v) completed twice: %v, then %v", r.ctx, r.op, r.status, res.Status)
	case r.q != q:
		w.fail("request %d of QP %d completed on QP %d", r.ctx, r.q.ctx, q.ctx)
	case (r.op == OpReceive) != (res.Type == OpReceive || res.Type == OpReceiveAndInvalidate):
		w.fail("request %d is a %v; its completion is typed %v", r.ctx, r.op, res.Type)
	}
	if r.op == OpReceive {
		w.receiveDone(q, r, res)
	} else {
		w.initiatorDone(q, r, res)
	}
}

// initiatorDone checks a completion of the initiator queue: it is the
// queue's oldest request not yet completed (those before it were silent
// successes, retired by it: rule 5), and cancelled if it was posted after
// the QP's error state began: after a failed completion of it was taken,
// after NdkFlush, or after the peer's access error (5.1). A request posted
// before that may have begun executing before the QP went to error, and
// then completes with its own status (nic/errorstate.go), even after the
// failed completion that precedes it.
func (w *fzWorld) initiatorDone(q *fzQP, r *fzReq, res Result) {
	for _, e := range q.init {
		if e == r {
			break
		}
		if !e.done && !e.silent {
			w.fail("request %d (%v) completed before request %d (%v), posted earlier on QP %d and not silent", r.ctx, r.op, e.ctx, e.op, q.ctx)
		}
		if !e.done {
			w.finishReq(e, StatusSuccess, 0) // a silent success, retired by this completion
		}
	}
	if res.Status != StatusCancelled && r.post > q.deadAt {
		w.fail("request %d (%v) posted on QP %d at step %d, after it went to error at step %d, completed %v, not STATUS_CANCELLED",
			r.ctx, r.op, q.ctx, r.post, q.deadAt, res.Status)
	}
	if res.Status != StatusSuccess {
		q.deadAt = min(q.deadAt, w.seq)
		if r.localOK && (res.Status == StatusAccessViolation || res.Status == StatusRemoteResources) {
			q.peer.deadAt = min(q.peer.deadAt, w.seq) // the peer refused it: the connection is torn down (5.4)
		}
	}
	w.finishReq(r, res.Status, res.BytesTransferred)
}

// receiveDone checks a receive's completion: receives complete in post
// order; one posted after the QP went to error is cancelled; a receive
// holds at most its length. (The token a ReceiveAndInvalidate names dies
// by its SendAndInvalidate's completion: postSend.)
func (w *fzWorld) receiveDone(q *fzQP, r *fzReq, res Result) {
	for _, e := range q.recv {
		if e == r {
			break
		}
		if !e.done {
			w.fail("receive %d completed before receive %d, posted earlier on QP %d", r.ctx, e.ctx, q.ctx)
		}
	}
	if res.Status != StatusCancelled && r.post > q.deadAt {
		w.fail("receive %d posted on QP %d after it went to error completed %v, not STATUS_CANCELLED", r.ctx, q.ctx, res.Status)
	}
	if res.Status == StatusSuccess && uint64(res.BytesTransferred) > r.land.n {
		w.fail("receive %d of %d B took %d B", r.ctx, r.land.n, res.BytesTransferred)
	}
	w.finishReq(r, res.Status, res.BytesTransferred)
}

// finishReq records a request's end, frees its source slot, checks that a
// successful Read or Write was allowed (5.4) and applies its effect on
// tokens.
func (w *fzWorld) finishReq(r *fzReq, st Status, n uint32) {
	r.done, r.doneSeq, r.status, r.bytes = true, w.seq, st, n
	if r.slot >= 0 {
		w.hosts[r.q.host].slots[r.slot] = nil
	}
	if st == StatusSuccess && r.need != 0 && r.remote.n > 0 && !w.allowed(r) {
		w.fail("request %d (%v of %d B at 0x%X with token 0x%X, posted at step %d) succeeded, but no registration the model knows granted it then",
			r.ctx, r.op, r.remote.n, r.remote.va, r.tok, r.post)
	}
	if r.then != nil {
		r.then(w, r)
	}
}

// allowed reports whether a span of the request's token covered its
// remote range with its right, through its responder QP, at some step
// between its post and its completion.
func (w *fzWorld) allowed(r *fzReq) bool {
	for _, s := range w.spans {
		if s.host == r.remote.host && s.tok == r.tok && s.from <= r.doneSeq && s.to >= r.post &&
			s.lo <= r.remote.va && r.remote.va+r.remote.n <= s.hi && s.rights&r.need != 0 &&
			(s.qp == nil || s.qp == r.q.peer.qp) {
			return true
		}
	}
	return false
}

// checkAllCompleted: after the final flush every request a post accepted
// has completed (rule 3; a silent one may have retired without a CQE).
func (w *fzWorld) checkAllCompleted() {
	for _, q := range w.qps {
		for _, r := range append(slices.Clone(q.init), q.recv...) {
			switch {
			case r.done:
			case r.silent:
				w.finishReq(r, StatusSuccess, 0)
			default:
				w.fail("request %d (%v) posted at step %d on QP %d never completed", r.ctx, r.op, r.post, q.ctx)
			}
		}
	}
}

// checkBytes: every byte of a data area that changed was written by a
// request that succeeded (a Write with exactly its source's byte), no
// source slot changed, and no page outside the two areas was written: no
// byte moved without a live token, its rights and its bounds (5.4).
func (w *fzWorld) checkBytes() {
	for _, x := range w.hosts {
		anyOK := make([]bool, fzDataBytes)
		vals := map[uint64][]byte{}
		for _, r := range w.reqs {
			if !r.done || r.status != StatusSuccess || r.land.host != x.idx || r.land.n == 0 {
				continue
			}
			n := r.land.n
			if r.op == OpReceive {
				n = uint64(r.bytes)
			}
			for i := range n {
				off := r.land.va + i - fzDataBase
				switch {
				case off >= fzDataBytes:
					w.fail("request %d (%v) landed outside the data area at 0x%X", r.ctx, r.op, r.land.va+i)
				case r.op == OpWrite:
					vals[off] = append(vals[off], r.src[i])
				default:
					anyOK[off] = true
				}
			}
		}
		w.checkArea(x, anyOK, vals)
	}
}

// checkArea compares host x's memory with what the requests explain.
func (w *fzWorld) checkArea(x *fzHost, anyOK []bool, vals map[uint64][]byte) {
	cur := make([]byte, fzDataBytes)
	x.h.a.Mem().Read(fzDataBase, cur)
	for off := range uint64(fzDataBytes) {
		if cur[off] != x.init[off] && !anyOK[off] && !bytes.Contains(vals[off], cur[off:off+1]) {
			w.fail("host %d: the byte at 0x%X is 0x%02X (was 0x%02X), and no successful request wrote it", x.idx, fzDataBase+off, cur[off], x.init[off])
		}
	}
	src := make([]byte, len(x.srcShadow))
	x.h.a.Mem().Read(fzSrcBase, src)
	if i := firstDiff(src, x.srcShadow); i >= 0 {
		w.fail("host %d: the source byte at 0x%X changed", x.idx, fzSrcBase+uint64(i))
	}
	if n := x.h.a.Mem().Pages(); n > fzDataPages+fzSlots*fzSlotBytes/PageSizeBytes {
		w.fail("host %d: %d pages of host memory written, more than the data area and the source slots hold", x.idx, n)
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
