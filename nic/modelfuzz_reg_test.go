package nic

import (
	"fmt"
)

// The model-level fuzzer's registration calls: each opens the span of the
// token it issues when its post or call is accepted, and closes it when a
// completion says the registration failed or has been undone. With valid
// arguments they pick objects in the state the call needs (an invalidated
// fast-register MR to register, a registered one to invalidate, ...).

// rightsOf are the remote rights work-request flags grant.
func rightsOf(f OpFlags) uint8 {
	var r uint8
	if f&OpAllowRemoteRead != 0 {
		r |= rightRead
	}
	if f&OpAllowRemoteWrite == OpAllowRemoteWrite {
		r |= rightWrite
	}
	return r
}

// standing reports whether one of the spans may still stand.
func standing(spans []*fzSpan) bool {
	for _, s := range spans {
		if s.to == fzNever {
			return true
		}
	}
	return false
}

// pickMR picks one of ms, one whose standing is want when valid and one
// exists.
func (w *fzWorld) pickMR(ms []*fzMR, valid, want bool) *fzMR {
	var fit []*fzMR
	for _, m := range ms {
		if standing(m.spans) == want && !m.busy {
			fit = append(fit, m)
		}
	}
	if !valid || len(fit) == 0 {
		fit = ms
	}
	return fit[w.c.intn(len(fit))]
}

// remoteFlags picks the remote rights of a registration: any of read and
// write when remote is allowed, none otherwise; or any bits.
func (w *fzWorld) remoteFlags(valid, remote bool) OpFlags {
	switch {
	case !valid:
		return OpFlags(w.c.intn(0x400))
	case !remote:
		return OpAllowLocalWrite
	}
	return []OpFlags{OpAllowRemoteRead, OpAllowRemoteWrite, OpAllowRemoteRead | OpAllowRemoteWrite}[w.c.intn(3)]
}

// fastRegister posts an NdkFastRegister of a fast-register MR over
// consecutive pages of the data area (base address = the first page + FBO,
// so virtual = physical), sometimes with arguments out of their ranges.
func (w *fzWorld) fastRegister() {
	valid := w.valid()
	q := w.pickQP()
	x := w.hosts[q.host]
	m := w.pickMR(x.frs, valid, false)
	k := 1 + w.c.intn(fzFRPages)
	if !valid && w.c.intn(2) == 0 {
		k = fzFRPages + 1
	}
	first := w.c.intn(fzDataPages - min(k, fzDataPages) + 1)
	pages := make([]uint64, k)
	for i := range pages {
		pages[i] = fzDataBase + uint64(first+i)*PageSizeBytes
	}
	fbo := uint64(w.c.intn(PageSizeBytes))
	length := 1 + uint64(w.c.intn(int(uint64(k)*PageSizeBytes-fbo)))
	if !valid && w.c.intn(2) == 0 {
		length += PageSizeBytes
	}
	base, flags, ctx := pages[0]+fbo, w.opFlags(w.remoteFlags(valid, m.remote)), w.nextCtx()
	w.lastOp = fmt.Sprintf("FastRegister host %d qp %d ctx %d: %d pages from 0x%X, fbo %d, %d B, flags 0x%X", q.host, q.ctx, ctx, k, pages[0], fbo, length, uint32(flags))
	if x.h.a.FastRegister(q.qp, ctx, m.mr, pages, uint32(fbo), length, base, flags) != StatusSuccess {
		return
	}
	s := w.openSpan(q.host, x.h.a.GetRemoteTokenFromMr(m.mr), base, base+length, rightsOf(flags), nil)
	m.spans, m.qp = append(m.spans, s), q
	s.reg = w.accept(q, ctx, OpFastRegister, flags)
	s.reg.then = spanOutcome(s)
}

// spanOutcome is what a FastRegister's or Bind's completion tells of the
// span it opened: when it took effect, or that it never stood.
func spanOutcome(s *fzSpan) func(w *fzWorld, r *fzReq) {
	return func(w *fzWorld, r *fzReq) {
		if r.status == StatusSuccess {
			s.done = r.doneSeq
		} else {
			s.to = min(s.to, r.doneSeq)
		}
	}
}

// invalidate posts an NdkInvalidate of a fast-register MR (on the QP that
// registered it, when valid) or, invalid, of a normal MR.
func (w *fzWorld) invalidate() {
	valid := w.valid()
	q := w.pickQP()
	x := w.hosts[q.host]
	m := w.pickMR(x.frs, valid, true)
	if valid && m.qp != nil && m.qp.host == q.host && m.qp.deadAt == fzNever {
		q = m.qp
	}
	if !valid && w.c.intn(2) == 0 {
		m = x.mrs[w.c.intn(len(x.mrs))]
	}
	w.postInvalidate(q, "MR", x.h.a.GetRemoteTokenFromMr(m.mr), &m.spans, func(ctx uint64, f OpFlags) Status { return x.h.a.Invalidate(q.qp, ctx, m.mr, f) })
}

// postInvalidate posts an NdkInvalidate (call) of an object whose spans
// end when it succeeds.
func (w *fzWorld) postInvalidate(q *fzQP, what string, tok uint32, spans *[]*fzSpan, call func(ctx uint64, f OpFlags) Status) {
	flags, ctx := w.opFlags(0), w.nextCtx()
	w.lastOp = fmt.Sprintf("Invalidate host %d qp %d ctx %d: %s 0x%X", q.host, q.ctx, ctx, what, tok)
	if call(ctx, flags) != StatusSuccess {
		return
	}
	r := w.accept(q, ctx, OpInvalidate, flags)
	r.then = func(w *fzWorld, r *fzReq) {
		if r.status == StatusSuccess {
			*spans = endSpansBefore(*spans, r)
		}
	}
}

// bind posts an NdkBind of an unbound window to a range of a registered
// normal MR (valid), or any window to any range.
func (w *fzWorld) bind() {
	valid := w.valid()
	q := w.pickQP()
	x := w.hosts[q.host]
	mw, m := x.mws[w.c.intn(len(x.mws))], w.pickMR(x.mrs, valid, true)
	for _, c := range x.mws {
		if valid && !standing(c.spans) {
			mw = c
		}
	}
	n := uint64(w.c.intn(2*PageSizeBytes + 1))
	va := fzDataBase + uint64(w.c.intn(int(fzDataBytes-n)+1))
	for _, s := range m.spans {
		if valid && s.to == fzNever {
			n = min(n, s.hi-s.lo)
			va = s.lo + uint64(w.c.intn(int(s.hi-s.lo-n)+1))
		}
	}
	flags, ctx := w.opFlags(w.remoteFlags(valid, true)), w.nextCtx()
	w.lastOp = fmt.Sprintf("Bind host %d qp %d ctx %d: %d B at 0x%X, flags 0x%X", q.host, q.ctx, ctx, n, va, uint32(flags))
	if x.h.a.Bind(q.qp, ctx, m.mr, mw.mw, va, n, flags) != StatusSuccess {
		return
	}
	s := w.openSpan(q.host, x.h.a.GetRemoteTokenFromMw(mw.mw), va, va+n, rightsOf(flags), q.qp)
	mw.spans, mw.qp = append(mw.spans, s), q
	s.reg = w.accept(q, ctx, OpBind, flags)
	s.reg.then = spanOutcome(s)
}

// invalidateMw posts an NdkInvalidate of a window (on the QP it is bound
// on, when valid).
func (w *fzWorld) invalidateMw() {
	q := w.pickQP()
	x := w.hosts[q.host]
	mw := x.mws[w.c.intn(len(x.mws))]
	if w.valid() && mw.qp != nil && mw.qp.host == q.host {
		q = mw.qp
	}
	w.postInvalidate(q, "MW", x.h.a.GetRemoteTokenFromMw(mw.mw), &mw.spans, func(ctx uint64, f OpFlags) Status { return x.h.a.InvalidateMw(q.qp, ctx, mw.mw, f) })
}

// registerMr calls NdkRegisterMr on a normal MR over a range of the data
// area: its token is the registration's once the callback has come
// (rule 24), and may be used from the call on.
func (w *fzWorld) registerMr() {
	valid := w.valid()
	h := w.c.intn(2)
	x := w.hosts[h]
	m := w.pickMR(x.mrs, valid, false)
	n := uint64(1 + w.c.intn(4*PageSizeBytes))
	va := fzDataBase + uint64(w.c.intn(int(fzDataBytes-n)+1))
	flags := []MRFlags{MRAllowRemoteRead, MRAllowRemoteWrite, MRAllowRemoteRead | MRAllowRemoteWrite, MRAllowLocalWrite}[w.c.intn(4)]
	if !valid {
		flags = MRFlags(w.c.intn(16))
	}
	call := w.seq
	w.lastOp = fmt.Sprintf("RegisterMr host %d: %d B at 0x%X, flags 0x%X", h, n, va, uint32(flags))
	st := x.h.a.RegisterMr(m.mr, []MDL{{VirtualAddress: va, ByteCount: n}}, n, flags, func(_ uint64, s Status) {
		m.busy = false
		if s != StatusSuccess {
			return
		}
		var r uint8
		if flags&MRAllowRemoteRead != 0 {
			r |= rightRead
		}
		if flags&MRAllowRemoteWrite == MRAllowRemoteWrite {
			r |= rightWrite
		}
		sp := w.openSpan(h, x.h.a.GetRemoteTokenFromMr(m.mr), va, va+n, r, nil)
		sp.from, sp.done = call, w.seq
		m.spans = append(m.spans, sp)
	}, 0)
	m.busy = m.busy || st == StatusPending
}

// deregisterMr calls NdkDeregisterMr on a normal MR: its token dies by the
// callback.
func (w *fzWorld) deregisterMr() {
	h := w.c.intn(2)
	x := w.hosts[h]
	m := w.pickMR(x.mrs, w.valid(), true)
	w.lastOp = fmt.Sprintf("DeregisterMr host %d: MR 0x%X", h, x.h.a.GetRemoteTokenFromMr(m.mr))
	st := x.h.a.DeregisterMr(m.mr, func(_ uint64, s Status) {
		m.busy = false
		if s == StatusSuccess {
			m.spans = endSpans(m.spans, w.seq)
		}
	}, 0)
	m.busy = m.busy || st == StatusPending
}

// closeObject calls NdkCloseObject on a window or a fast-register MR: its
// tokens die by the call's return, or by its callback when it pends.
func (w *fzWorld) closeObject() {
	h := w.c.intn(2)
	x := w.hosts[h]
	var obj any
	var spans *[]*fzSpan
	if w.c.intn(2) == 0 {
		mw := x.mws[w.c.intn(len(x.mws))]
		obj, spans = mw.mw, &mw.spans
	} else {
		m := x.frs[w.c.intn(len(x.frs))]
		obj, spans = m.mr, &m.spans
	}
	w.lastOp = fmt.Sprintf("CloseObject host %d: %T", h, obj)
	st := x.h.a.CloseObject(obj, func(uint64, Status) { *spans = endSpans(*spans, w.seq) }, 0)
	if st == StatusSuccess {
		*spans = endSpans(*spans, w.seq)
	}
}
