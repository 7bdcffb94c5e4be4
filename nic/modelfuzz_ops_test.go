package nic

import (
	"fmt"
)

// The model-level fuzzer's data calls. Each picks its objects and
// arguments, mostly ones the reference model expects to work and
// otherwise anything (a dead or altered token, a range across a bound, a
// wrong local buffer, any flag bits), makes the call, and tells the
// reference model what a request the call accepted may do
// (modelfuzz_ref_test.go).

// valid decides whether a call's arguments are to be valid (9 in 10).
func (w *fzWorld) valid() bool { return w.c.intn(10) != 0 }

// opFlags picks work-request flags: mostly the given ones, with
// SILENT_SUCCESS or READ_FENCE at times, or any bits.
func (w *fzWorld) opFlags(given OpFlags) OpFlags {
	switch w.c.intn(20) {
	case 0, 1, 2:
		return given | OpSilentSuccess
	case 3, 4:
		return given | OpReadFence
	case 5:
		return OpFlags(w.c.intn(0x400))
	}
	return given
}

// nextCtx is a fresh request context.
func (w *fzWorld) nextCtx() uint64 {
	w.ctx++
	return w.ctx
}

// standingOn lists the spans of host h standing now with one of the
// rights in need (any right when need is 0) that QP q may use: a window
// answers only through the QP it was bound on, the peer of q.
func (w *fzWorld) standingOn(h int, need uint8, q *fzQP) []*fzSpan {
	var out []*fzSpan
	for _, s := range w.spans {
		if s.host == h && s.to == fzNever && s.hi > s.lo && (need == 0 || s.rights&need != 0) && (s.qp == nil || s.qp == q.peer.qp) {
			out = append(out, s)
		}
	}
	return out
}

// remoteTarget picks a token of q's peer and a range of at most nMax
// bytes for it: mostly a standing span's with a range inside it;
// otherwise a dead span's, an altered key, a range across its end, or any
// token.
func (w *fzWorld) remoteTarget(q *fzQP, need uint8, nMax uint64) (tok uint32, va, n uint64) {
	h := 1 - q.host
	n = uint64(w.c.intn(int(nMax) + 1))
	va = fzDataBase + uint64(w.c.intn(fzDataBytes))
	var cands []*fzSpan
	switch k := w.c.intn(20); {
	case k < 16:
		cands = w.standingOn(h, need, q) // valid
	case k < 18:
		cands = w.standingOn(h, 0, q) // standing, perhaps without the right
	case k < 19:
		for _, s := range w.spans { // dead ones too
			if s.host == h {
				cands = append(cands, s)
			}
		}
	}
	if len(cands) == 0 {
		x := w.hosts[h]
		return []uint32{uint32(w.c.intn(1 << 16)), x.h.a.GetLocalTokenFromMr(x.sink)}[w.c.intn(2)], va, n
	}
	s := cands[w.c.intn(len(cands))]
	tok = s.tok
	switch w.c.intn(20) {
	case 0:
		tok ^= uint32(1 + w.c.intn(255)) // another key
	case 1:
		va = s.hi - uint64(w.c.intn(64)) // across the end
	default:
		n = min(n, s.hi-s.lo)
		va = s.lo + uint64(w.c.intn(int(s.hi-s.lo-n)+1))
	}
	return tok, va, n
}

// srcSGE takes a free source slot of host x, fills n of its bytes with
// fresh ones and returns the SGE (its token rarely wrong: ok false), the
// slot and the bytes.
func (w *fzWorld) srcSGE(x *fzHost, nMax uint64) (sge SGE, slot int, b []byte, ok bool) {
	slot = -1
	for i := range fzSlots {
		if x.slots[(int(w.ctx)+i)%fzSlots] == nil {
			slot = (int(w.ctx) + i) % fzSlots
			break
		}
	}
	if slot < 0 {
		return SGE{}, -1, nil, false
	}
	n := uint64(w.c.intn(int(nMax) + 1))
	off := uint64(w.c.intn(int(fzSlotBytes-n) + 1))
	va := fzSrcBase + uint64(slot)*fzSlotBytes + off
	b = pattern(int(n), byte(w.ctx*13+uint64(w.c.intn(256))))
	x.h.a.Mem().Write(va, b)
	copy(x.srcShadow[va-fzSrcBase:], b)
	tok, ok := x.h.a.GetLocalTokenFromMr(x.src), true
	if w.c.intn(40) == 0 {
		tok, ok = tok^0x100, n == 0 // another MR's index
	}
	return SGE{VirtualAddress: va, Length: uint32(n), Token: tok}, slot, b, ok
}

// sinkSGE is a range of at least nMin and at most nMax bytes of host x's
// data area under its sink MR's token (rarely a wrong one: ok false).
func (w *fzWorld) sinkSGE(x *fzHost, nMin, nMax uint64) (SGE, bool) {
	n := nMin + uint64(w.c.intn(int(nMax-nMin)+1))
	va := fzDataBase + uint64(w.c.intn(int(fzDataBytes-n)+1))
	tok, ok := x.h.a.GetLocalTokenFromMr(x.sink), true
	if w.c.intn(40) == 0 {
		tok, ok = x.h.a.GetLocalTokenFromMr(x.src), n == 0 // no right to write there
	}
	return SGE{VirtualAddress: va, Length: uint32(n), Token: tok}, ok
}

// postWrite posts an NdkWrite from a source slot into the peer's memory.
func (w *fzWorld) postWrite() {
	q := w.pickQP()
	x := w.hosts[q.host]
	sge, slot, b, ok := w.srcSGE(x, 3*PageSizeBytes/2)
	if slot < 0 {
		return
	}
	tok, va, n := w.remoteTarget(q, rightWrite, uint64(sge.Length))
	sge.Length, b = uint32(n), b[:n]
	flags, ctx := w.opFlags(0), w.nextCtx()
	w.lastOp = fmt.Sprintf("Write host %d qp %d ctx %d: %d B to 0x%X token 0x%X flags 0x%X", q.host, q.ctx, ctx, n, va, tok, uint32(flags))
	if x.h.a.Write(q.qp, ctx, sge, va, tok, flags) != StatusSuccess {
		return
	}
	r := w.accept(q, ctx, OpWrite, flags)
	r.slot, r.src, r.localOK = slot, b, ok
	r.land = fzRange{host: 1 - q.host, va: va, n: n}
	r.remote, r.tok, r.need = r.land, tok, rightWrite
	x.slots[slot] = r
}

// postRead posts an NdkRead from the peer's memory into this host's data
// area.
func (w *fzWorld) postRead() {
	q := w.pickQP()
	x := w.hosts[q.host]
	tok, va, n := w.remoteTarget(q, rightRead, 3*PageSizeBytes/2)
	sge, ok := w.sinkSGE(x, n, n)
	flags, ctx := w.opFlags(0), w.nextCtx()
	w.lastOp = fmt.Sprintf("Read host %d qp %d ctx %d: %d B from 0x%X token 0x%X into 0x%X", q.host, q.ctx, ctx, n, va, tok, sge.VirtualAddress)
	if x.h.a.Read(q.qp, ctx, sge, va, tok, flags) != StatusSuccess {
		return
	}
	r := w.accept(q, ctx, OpRead, flags)
	r.localOK = ok
	r.land = fzRange{host: q.host, va: sge.VirtualAddress, n: n}
	r.remote, r.tok, r.need = fzRange{host: 1 - q.host, va: va, n: n}, tok, rightRead
}

// postSend posts an NdkSend, or an NdkSendAndInvalidate of a token of the
// peer's, from a source slot.
func (w *fzWorld) postSend(inv bool) {
	q := w.pickQP()
	x := w.hosts[q.host]
	sge, slot, _, ok := w.srcSGE(x, PageSizeBytes)
	if slot < 0 {
		return
	}
	flags, ctx := w.opFlags(0), w.nextCtx()
	var st Status
	var tok uint32
	if inv {
		tok, _, _ = w.remoteTarget(q, 0, 0)
		w.lastOp = fmt.Sprintf("SendAndInvalidate host %d qp %d ctx %d: %d B, token 0x%X", q.host, q.ctx, ctx, sge.Length, tok)
		st = x.h.a.SendAndInvalidate(q.qp, ctx, sge, tok, flags)
	} else {
		w.lastOp = fmt.Sprintf("Send host %d qp %d ctx %d: %d B", q.host, q.ctx, ctx, sge.Length)
		st = x.h.a.Send(q.qp, ctx, sge, flags)
	}
	if st != StatusSuccess {
		return
	}
	r := w.accept(q, ctx, OpSend, flags)
	r.slot, r.localOK = slot, ok
	x.slots[slot] = r
	if inv {
		r.then = func(w *fzWorld, r *fzReq) {
			if r.status == StatusSuccess {
				w.endToken(1-q.host, tok, r) // invalidated before the receive was signalled (rule 57)
			}
		}
	}
}

// postReceive posts an NdkReceive of a range of the data area, mostly one
// a Send fits.
func (w *fzWorld) postReceive() {
	q := w.pickQP()
	x := w.hosts[q.host]
	sge, _ := w.sinkSGE(x, PageSizeBytes*uint64(w.c.intn(2)), PageSizeBytes+PageSizeBytes/2)
	ctx := w.nextCtx()
	w.lastOp = fmt.Sprintf("Receive host %d qp %d ctx %d: %d B at 0x%X", q.host, q.ctx, ctx, sge.Length, sge.VirtualAddress)
	if x.h.a.Receive(q.qp, ctx, sge) != StatusSuccess {
		return
	}
	r := w.accept(q, ctx, OpReceive, 0)
	r.land = fzRange{host: q.host, va: sge.VirtualAddress, n: uint64(sge.Length)}
}

// flush calls NdkFlush on a QP.
func (w *fzWorld) flush() {
	q := w.pickQP()
	w.lastOp = fmt.Sprintf("Flush host %d qp %d", q.host, q.ctx)
	if w.hosts[q.host].h.a.Flush(q.qp) == StatusSuccess {
		q.deadAt = min(q.deadAt, w.seq) // what is posted from now on is cancelled
	}
}
