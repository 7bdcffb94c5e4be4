package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
)

// call is what a call step did: the object it acted on and the status the
// call returned, which the runner prints and checks.
type call struct {
	object string
	status nic.Status
}

// opFunc performs one step. ok is false when there is no status to print
// and check: the step failed before its call, or it prints its own lines
// (run, poll, fill, check).
type opFunc func(r *runner, st *Step, a args, ctx uint64) (c call, ok bool)

// opDef is one step operation: its keys with their kinds (args.go), the
// keys it requires, and what it does.
type opDef struct {
	fields   string
	required string
	run      opFunc
}

// ops is every step operation. A new operation is one row here and its
// method (and, if its call may return STATUS_PENDING, its name in mayPend,
// decode.go).
var ops = map[string]opDef{
	"create_pd":           {"pd:r", "pd", (*runner).createPD},
	"create_cq":           {"cq:r depth:u", "cq depth", (*runner).createCQ},
	"create_qp":           {"qp:r pd:r cq:r receive_cq:r depth:u receive_depth:u ctx:u", "qp pd cq", (*runner).createQP},
	"connect":             {"a:r b:r", "a b", (*runner).connect},
	"create_mr":           {"mr:r pd:r fast_register:b ctx:u", "mr pd", (*runner).createMR},
	"init_fr_mr":          {"mr:r pages:u remote_access:b ctx:u", "mr pages", (*runner).initFRMR},
	"register_mr":         {"mr:r va:u length:u flags:f pieces:u mdl:M ctx:u", "mr length", (*runner).registerMR},
	"deregister_mr":       {"mr:r ctx:u", "mr", (*runner).deregisterMR},
	"create_mw":           {"mw:r pd:r ctx:u", "mw pd", (*runner).createMW},
	"fast_register":       {"qp:r mr:r pages:u page_list:P page_base:u fbo:u length:u base_va:u flags:f ctx:u", "qp mr length", (*runner).fastRegister},
	"bind":                {"qp:r mw:r mr:r va:u length:u flags:f ctx:u", "qp mw mr va length", (*runner).bind},
	"invalidate":          {"qp:r target:r flags:f ctx:u", "qp target", (*runner).invalidate},
	"write":               {"qp:r local:l remote:R flags:f ctx:u", "qp local remote", dataOp(postWrite)},
	"read":                {"qp:r local:l remote:R flags:f ctx:u", "qp local remote", dataOp(postRead)},
	"send":                {"qp:r local:l flags:f ctx:u", "qp local", dataOp(postSend)},
	"send_and_invalidate": {"qp:r local:l token:t token_xor:u token_key_plus:u flags:f ctx:u", "qp local token", dataOp(postSendAndInvalidate)},
	"receive":             {"qp:r local:l ctx:u", "qp local", dataOp(postReceive)},
	"flush":               {"qp:r", "qp", (*runner).flush},
	"run":                 {"until:U us:u cq:r", "", (*runner).run},
	"poll":                {"cq:r max:u any_order:b", "cq", (*runner).poll},
	"save_token":          {"token:t as:N", "token as", (*runner).saveToken},
	"compare_tokens":      {"a:t b:t relation:V", "a b relation", (*runner).compareTokens},
	"fill":                {"host:h va:u length:u byte:u pattern_seed:u", "host va length", (*runner).memory},
	"check":               {"host:h va:u length:u byte:u pattern_seed:u equals:E", "host va length", (*runner).memory},
	"close":               {"object:r ctx:u", "object", (*runner).close},
}

// runTimeMaxPS is the latest simulated time a scenario reaches (2^60 ps,
// about 13 days): far enough from a Tick's 2^64 that no time the model
// computes from it wraps.
const runTimeMaxPS = 1 << 60

// count is a number argument as a uint32 count, capped at 2^31.
func count(v uint64) uint32 { return uint32(min(v, 1<<31)) }

func (r *runner) createPD(st *Step, a args, _ uint64) (call, bool) {
	name, h, ok := r.newObj(st, a["pd"])
	if !ok {
		return call{}, false
	}
	status, pd := r.ads[h].CreatePD()
	if status == nic.StatusSuccess {
		r.objs[name] = &obj{h, pd}
	}
	return call{name, status}, true
}

func (r *runner) createCQ(st *Step, a args, _ uint64) (call, bool) {
	name, h, ok := r.newObj(st, a["cq"])
	if !ok {
		return call{}, false
	}
	status, cq := r.ads[h].CreateCQ(count(a["depth"].u))
	if status == nic.StatusSuccess {
		r.objs[name] = &obj{h, cq}
	}
	return call{name, status}, true
}

func (r *runner) createQP(st *Step, a args, ctx uint64) (call, bool) {
	name, h, ok := r.newObj(st, a["qp"])
	pd, _ := get[*nic.PD](r, st, a["pd"], "PD")
	cq, _ := get[*nic.CQ](r, st, a["cq"], "CQ")
	rcq := cq
	if a["receive_cq"] != nil {
		rcq, _ = get[*nic.CQ](r, st, a["receive_cq"], "CQ")
	}
	if !ok || r.failure != nil {
		return call{}, false
	}
	status, qp := r.ads[h].CreateQPWithCQs(pd, rcq, cq, ctx, count(a.u("depth", 64)), count(a.u("receive_depth", 64)))
	if status == nic.StatusSuccess {
		r.objs[name] = &obj{h, qp}
	}
	return call{name, status}, true
}

func (r *runner) connect(st *Step, a args, _ uint64) (call, bool) {
	qa, _ := get[*nic.QP](r, st, a["a"], "QP")
	qb, _ := get[*nic.QP](r, st, a["b"], "QP")
	if r.failure != nil {
		return call{}, false
	}
	object := a["a"].s + "," + a["b"].s
	if err := nic.ConnectQPs(qa, qb); err != nil {
		var se *nic.StatusError
		if errors.As(err, &se) {
			return call{object, se.Status}, true // checked against expect: like a call's status
		}
		r.fail(st, "connect: %v", err)
		return call{}, false
	}
	return call{object, nic.StatusSuccess}, true
}

// created records an object a creation call made: now when the call
// succeeded, or when its callback reports success (awaited when it pended).
func (r *runner) created(cb *callbackRec, h int, status nic.Status, v any) {
	cb.ret = &status
	r.checkOneCallback(cb)
	if status == nic.StatusPending {
		r.cbs = append(r.cbs, cb)
	} else if status == nic.StatusSuccess {
		r.objs[cb.obj] = &obj{h, v}
	}
}

// createdLater is a creation call's callback: it records the object on
// success (made says the call handed one back) and reports the callback.
func (r *runner) createdLater(cb *callbackRec, h int, ctx uint64, s nic.Status, v any, made bool) {
	if s == nic.StatusSuccess && made {
		r.objs[cb.obj] = &obj{h, v}
	}
	r.fired(cb, s, ctx)
}

func (r *runner) createMR(st *Step, a args, ctx uint64) (call, bool) {
	name, h, ok := r.newObj(st, a["mr"])
	pd, _ := get[*nic.PD](r, st, a["pd"], "PD")
	if !ok || r.failure != nil {
		return call{}, false
	}
	cb := &callbackRec{step: st, obj: name}
	status, mr := r.ads[h].CreateMr(pd, a.flag("fast_register"), func(c uint64, s nic.Status, m *nic.MR) {
		r.createdLater(cb, h, c, s, m, m != nil)
	}, ctx)
	r.created(cb, h, status, mr)
	return call{name, status}, true
}

func (r *runner) createMW(st *Step, a args, ctx uint64) (call, bool) {
	name, h, ok := r.newObj(st, a["mw"])
	pd, _ := get[*nic.PD](r, st, a["pd"], "PD")
	if !ok || r.failure != nil {
		return call{}, false
	}
	cb := &callbackRec{step: st, obj: name}
	status, mw := r.ads[h].CreateMw(pd, func(c uint64, s nic.Status, m *nic.MW) {
		r.createdLater(cb, h, c, s, m, m != nil)
	}, ctx)
	r.created(cb, h, status, mw)
	return call{name, status}, true
}

func (r *runner) initFRMR(st *Step, a args, ctx uint64) (call, bool) {
	mr, h := get[*nic.MR](r, st, a["mr"], "MR")
	if r.failure != nil {
		return call{}, false
	}
	return r.pending(st, a["mr"].s, func(done nic.RequestCompletion) nic.Status {
		return r.ads[h].InitializeFastRegisterMr(mr, count(a["pages"].u), a.flag("remote_access"), done, ctx)
	})
}

// pending makes a call on object that may pend (issue makes it with the
// completion to call back): the callback is printed and checked when it
// fires.
func (r *runner) pending(st *Step, object string, issue func(done nic.RequestCompletion) nic.Status) (call, bool) {
	done, cb := r.callback(st, object)
	status := issue(done)
	r.settle(cb, status)
	return call{object, status}, true
}

func (r *runner) registerMR(st *Step, a args, ctx uint64) (call, bool) {
	mr, h := get[*nic.MR](r, st, a["mr"], "MR")
	if r.failure != nil {
		return call{}, false
	}
	n := a["length"].u
	var chain []nic.MDL
	if m := a["mdl"]; m != nil {
		for _, p := range m.list { // exactly as written (rules 19, 20)
			chain = append(chain, nic.MDL{VirtualAddress: p.sub["va"].u, ByteCount: p.sub["bytes"].u})
		}
	} else {
		chain = mdlChain(a["va"].u, n, a.u("pieces", 1)) // 1..SplitPiecesMax, checked at load
	}
	return r.pending(st, a["mr"].s, func(done nic.RequestCompletion) nic.Status {
		return r.ads[h].RegisterMr(mr, chain, n, nic.MRFlags(a.u("flags", 0)), done, ctx)
	})
}

// mdlChain splits [va, va+n) at page boundaries into at most pieces pieces.
func mdlChain(va, n, pieces uint64) []nic.MDL {
	var chain []nic.MDL
	cur, end := va, va+n
	for i := uint64(0); i < pieces && cur < end; i++ {
		next := end
		if i+1 < pieces {
			next = min(end, (cur/nic.PageSizeBytes+1)*nic.PageSizeBytes)
		}
		chain = append(chain, nic.MDL{VirtualAddress: cur, ByteCount: next - cur})
		cur = next
	}
	return chain
}

func (r *runner) deregisterMR(st *Step, a args, ctx uint64) (call, bool) {
	mr, h := get[*nic.MR](r, st, a["mr"], "MR")
	if r.failure != nil {
		return call{}, false
	}
	return r.pending(st, a["mr"].s, func(done nic.RequestCompletion) nic.Status {
		return r.ads[h].DeregisterMr(mr, done, ctx)
	})
}

func (r *runner) fastRegister(st *Step, a args, ctx uint64) (call, bool) {
	qp, h := get[*nic.QP](r, st, a["qp"], "QP")
	mr, _ := get[*nic.MR](r, st, a["mr"], "MR")
	if r.failure != nil {
		return call{}, false
	}
	var pages []uint64
	if l := a["page_list"]; l != nil {
		for _, p := range l.list { // exactly as written: any address (rule 36)
			pages = append(pages, p.u)
		}
	} else {
		base := a.u("page_base", 0x8000_0000)
		pages = make([]uint64, a["pages"].u)
		for i := range pages {
			pages[i] = base + uint64(i)*nic.PageSizeBytes
		}
	}
	fbo := a.u("fbo", 0)
	status := r.ads[h].FastRegister(qp, ctx, mr, pages, count(fbo), a["length"].u, a.u("base_va", fbo), nic.OpFlags(a.u("flags", 0)))
	return call{a["qp"].s, status}, true
}

func (r *runner) bind(st *Step, a args, ctx uint64) (call, bool) {
	qp, h := get[*nic.QP](r, st, a["qp"], "QP")
	mw, _ := get[*nic.MW](r, st, a["mw"], "MW")
	mr, _ := get[*nic.MR](r, st, a["mr"], "MR")
	if r.failure != nil {
		return call{}, false
	}
	status := r.ads[h].Bind(qp, ctx, mr, mw, a["va"].u, a["length"].u, nic.OpFlags(a.u("flags", 0)))
	return call{a["qp"].s, status}, true
}

func (r *runner) invalidate(st *Step, a args, ctx uint64) (call, bool) {
	qp, h := get[*nic.QP](r, st, a["qp"], "QP")
	t := r.obj(st, a["target"])
	if r.failure != nil {
		return call{}, false
	}
	fl := nic.OpFlags(a.u("flags", 0))
	switch v := t.v.(type) {
	case *nic.MR:
		return call{a["qp"].s, r.ads[h].Invalidate(qp, ctx, v, fl)}, true
	case *nic.MW:
		return call{a["qp"].s, r.ads[h].InvalidateMw(qp, ctx, v, fl)}, true
	}
	r.fail(st, "%s is not an MR or MW", a["target"].s)
	return call{}, false
}

// dataReq is one data-path request with its arguments resolved: the local
// SGE, the remote address and token (Write, Read), or the token to
// invalidate (SendAndInvalidate).
type dataReq struct {
	qp    *nic.QP
	ctx   uint64
	sge   nic.SGE
	va    uint64
	token uint32
	flags nic.OpFlags
}

func postWrite(ad *nic.Adapter, q *dataReq) nic.Status {
	return ad.Write(q.qp, q.ctx, q.sge, q.va, q.token, q.flags)
}

func postRead(ad *nic.Adapter, q *dataReq) nic.Status {
	return ad.Read(q.qp, q.ctx, q.sge, q.va, q.token, q.flags)
}

func postSend(ad *nic.Adapter, q *dataReq) nic.Status { return ad.Send(q.qp, q.ctx, q.sge, q.flags) }

func postSendAndInvalidate(ad *nic.Adapter, q *dataReq) nic.Status {
	return ad.SendAndInvalidate(q.qp, q.ctx, q.sge, q.token, q.flags)
}

func postReceive(ad *nic.Adapter, q *dataReq) nic.Status { return ad.Receive(q.qp, q.ctx, q.sge) }

// dataOp is the step of a data-path request: its arguments are resolved,
// then post posts it.
func dataOp(post func(ad *nic.Adapter, q *dataReq) nic.Status) opFunc {
	return func(r *runner, st *Step, a args, ctx uint64) (call, bool) {
		qp, h := get[*nic.QP](r, st, a["qp"], "QP")
		if r.failure != nil {
			return call{}, false
		}
		q := &dataReq{qp: qp, ctx: ctx, sge: r.sge(st, a["local"]), flags: nic.OpFlags(a.u("flags", 0))}
		if rm := a["remote"]; rm != nil {
			q.va = rm.sub["va"].u
			q.token = r.token(st, rm.sub["token"], rm.sub["token_xor"], rm.sub["token_key_plus"])
		}
		if t := a["token"]; t != nil {
			q.token = r.token(st, t, a["token_xor"], a["token_key_plus"])
		}
		if r.failure != nil {
			return call{}, false
		}
		return call{a["qp"].s, post(r.ads[h], q)}, true
	}
}

func (r *runner) flush(st *Step, a args, _ uint64) (call, bool) {
	qp, h := get[*nic.QP](r, st, a["qp"], "QP")
	if r.failure != nil {
		return call{}, false
	}
	return call{a["qp"].s, r.ads[h].Flush(qp)}, true
}

func (r *runner) close(st *Step, a args, ctx uint64) (call, bool) {
	o := r.obj(st, a["object"])
	if o == nil {
		return call{}, false
	}
	return r.pending(st, a["object"].s, func(done nic.RequestCompletion) nic.Status {
		return r.ads[o.host].CloseObject(o.v, done, ctx)
	})
}

// run advances the engine until it is idle, by us microseconds, or, with
// cq, until a completion becomes visible on that CQ, within us
// microseconds (a failure when none does). us is at most RunUSMax, checked
// when decoding; the time reached, which an idle run can push on, must
// leave room for it.
func (r *runner) run(st *Step, a args, _ uint64) (call, bool) {
	e := r.env.Engine
	var d sim.Tick
	if us := a["us"]; us != nil {
		d = sim.Tick(us.u) * sim.US
		if now := e.Now(); now > runTimeMaxPS-d {
			r.fail(st, "run: %v after %v is past the %v a scenario can simulate", d, now, sim.Tick(runTimeMaxPS))
			return call{}, false
		}
	}
	switch {
	case a["until"] != nil:
		if !r.runUntilIdle(st) {
			return call{}, false
		}
	case a["cq"] != nil:
		if !r.runUntilCQ(st, a["cq"], d) {
			return call{}, false
		}
	default:
		e.RunUntil(e.Now() + d)
	}
	r.emit(Line{Step: st.Index, Name: st.Name, Op: st.Op})
	return call{}, false
}

// idleRunMaxPS bounds a run until idle: a model still busy 10 s of
// simulated time after the step began waits for something that never
// comes (a Send with no receive posted, retried for ever).
const idleRunMaxPS = 10 * sim.Tick(1e12)

// runUntilIdle runs the engine until it has nothing left to do; false (the
// step failed) when it is still busy idleRunMaxPS later.
func (r *runner) runUntilIdle(st *Step) bool {
	e := r.env.Engine
	end := min(e.Now()+idleRunMaxPS, runTimeMaxPS)
	for e.NextTime() <= end && e.Step() {
	}
	if e.Pending() > 0 {
		r.fail(st, "run: the model is still busy %v after the step began (a Send with no receive posted is retried for ever with nic.rnr_retry 7; post a receive, or lower rnr_retry)", idleRunMaxPS)
		return false
	}
	return true
}

// runUntilCQ runs the engine until a CQE becomes visible on the CQ a names
// or d has passed; false (the step failed) when none became visible.
func (r *runner) runUntilCQ(st *Step, a *arg, d sim.Tick) bool {
	cq, _ := get[*nic.CQ](r, st, a, "CQ")
	if r.failure != nil {
		return false
	}
	e := r.env.Engine
	end := e.Now() + d
	arrived := false
	cq.SetVisibleHook(sim.HandlerFunc(func(sim.Tick, uint64) { arrived = true }), 0)
	for !arrived && e.NextTime() <= end && e.Step() {
	}
	cq.SetVisibleHook(nil, 0)
	if !arrived {
		if e.Now() < end && e.Pending() == 0 {
			r.fail(st, "run: no completion arrived on %s: the model went idle first", a.s)
		} else {
			r.fail(st, "run: no completion arrived on %s within %d us", a.s, d/1_000_000)
		}
		return false
	}
	return true
}

// saveToken reads a token (NdkGetRemoteTokenFromMr, NdkGetLocalTokenFromMr,
// NdkGetRemoteTokenFromMw, NdkGetPrivilegedMemoryRegionToken; docs/ndk.md
// rule 59) and saves its value under a name for later steps.
func (r *runner) saveToken(st *Step, a args, _ uint64) (call, bool) {
	t := r.token(st, a["token"], nil, nil)
	if r.failure != nil {
		return call{}, false
	}
	name := strings.TrimPrefix(a["as"].s, "$")
	r.saved[name] = t
	r.emit(Line{Step: st.Index, Name: st.Name, Op: st.Op, Object: a["token"].s, Token: fmt.Sprintf("0x%08X", t), Saved: "$" + name})
	return call{}, false
}

// compareTokens checks a relation between two tokens (24-bit index, 8-bit
// key: docs/ndk.md §5.3).
func (r *runner) compareTokens(st *Step, a args, _ uint64) (call, bool) {
	x, y := r.token(st, a["a"], nil, nil), r.token(st, a["b"], nil, nil)
	if r.failure != nil {
		return call{}, false
	}
	rel := a["relation"].s
	holds := relations[rel](x, y)
	detail := map[bool]string{true: "holds", false: "does not hold"}[holds]
	r.emit(Line{Step: st.Index, Name: st.Name, Op: st.Op, Object: a["a"].s + " " + rel + " " + a["b"].s,
		Token: fmt.Sprintf("0x%08X 0x%08X", x, y), Detail: detail})
	if !holds {
		r.fail(st, "compare_tokens: %s = 0x%08X and %s = 0x%08X: expected %s", a["a"].s, x, a["b"].s, y, rel)
	}
	return call{}, false
}
