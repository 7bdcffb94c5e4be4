package workloads

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// ScenarioFailure is the first failed expectation of a scenario run.
type ScenarioFailure struct {
	File string
	Step int
	Name string
	Line int
	Msg  string
}

func (f *ScenarioFailure) Error() string {
	name := ""
	if f.Name != "" {
		name = fmt.Sprintf(" %q", f.Name)
	}
	return fmt.Sprintf("%s:%d: step %d%s failed: %s", f.File, f.Line, f.Step, name, f.Msg)
}

// ScenarioLine is one JSON output line: a call, a callback or a completion.
type ScenarioLine struct {
	Step   int    `json:"step"`
	Name   string `json:"name,omitempty"`
	Op     string `json:"op"`
	Object string `json:"object,omitempty"`
	Status string `json:"status,omitempty"`
	Value  string `json:"value,omitempty"`
	Type   string `json:"type,omitempty"`
	Ctx    uint64 `json:"ctx,omitempty"`
	Bytes  uint32 `json:"bytes,omitempty"`
	Detail string `json:"detail,omitempty"`
	TimePS uint64 `json:"time_ps"`
}

type scObj struct {
	host int
	v    any // *nic.PD, *nic.CQ, *nic.QP, *nic.MR, *nic.MW
}

type scCallback struct {
	step *ScenarioStep
	obj  string
	got  *nic.Status
}

type scRunner struct {
	s       *Scenario
	env     *sim.Env
	ads     []*nic.Adapter
	hostIdx map[string]int
	objs    map[string]*scObj
	out     io.Writer
	cbs     []*scCallback
	failure *ScenarioFailure
}

// Run executes the scenario, writing one JSON line per call, callback and
// completion to out. It returns a *ScenarioFailure at the first failed
// expectation, or another error when the model cannot be built.
func (s *Scenario) Run(out io.Writer) error {
	r := &scRunner{s: s, env: sim.NewEnv(1), hostIdx: map[string]int{}, objs: map[string]*scObj{}, out: out}
	for i, h := range s.Hosts {
		link, err := pcie.New(h.Name+".PCIe", pcie.DefaultSpec(), r.env)
		if err != nil {
			return err
		}
		a, err := nic.New(h.Name, h.Spec, r.env, link, link.DMA())
		if err != nil {
			return fmt.Errorf("host %s: %w", h.Name, err)
		}
		r.ads = append(r.ads, a)
		r.hostIdx[h.Name] = i
	}
	if len(r.ads) == 2 {
		if _, err := nic.NewWire("Wire", s.Wire, r.ads[0], r.ads[1]); err != nil {
			return err
		}
	}
	for _, st := range s.Steps {
		r.safeStep(st)
		if r.failure != nil {
			return r.failure
		}
	}
	for _, cb := range r.cbs {
		if cb.got == nil && cb.step.Callback != nil {
			r.fail(cb.step, "expected callback %s for %s, but it never fired (add a run step)", *cb.step.Callback, cb.obj)
			return r.failure
		}
	}
	return nil
}

// safeStep runs one step; a panic of the model (such as host memory beyond
// HostMemoryPagesMax) fails the step instead of ending the process.
func (r *scRunner) safeStep(st *ScenarioStep) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(st, "%s: the model failed: %v", st.Op, p)
		}
	}()
	r.step(st)
}

func (r *scRunner) now() uint64 { return uint64(r.env.Engine.Now()) }

func (r *scRunner) emit(l ScenarioLine) {
	l.TimePS = r.now()
	b, _ := json.Marshal(l)
	fmt.Fprintf(r.out, "%s\n", b)
}

func (r *scRunner) fail(st *ScenarioStep, format string, args ...any) {
	if r.failure == nil {
		r.failure = &ScenarioFailure{File: r.s.File, Step: st.Index, Name: st.Name, Line: st.Line, Msg: fmt.Sprintf(format, args...)}
	}
}

func (r *scRunner) obj(st *ScenarioStep, a *scArg) *scObj {
	o := r.objs[a.s]
	if o == nil {
		r.fail(st, "object %s does not exist (not created, or its creation did not succeed)", a.s)
	}
	return o
}

func scGet[T any](r *scRunner, st *ScenarioStep, a *scArg, what string) (T, int) {
	var zero T
	o := r.obj(st, a)
	if o == nil {
		return zero, 0
	}
	v, ok := o.v.(T)
	if !ok {
		r.fail(st, "object %s is not a %s", a.s, what)
		return zero, 0
	}
	return v, o.host
}

// token resolves a token argument and its alterations.
func (r *scRunner) token(st *ScenarioStep, a *scArg, xor, keyPlus *scArg) uint32 {
	var t uint32
	if a.isNum {
		t = uint32(a.u)
	} else {
		base := a.s[:strings.LastIndex(a.s, ".")]
		o := r.obj(st, &scArg{s: base})
		if o == nil {
			return 0
		}
		ad := r.ads[o.host]
		switch v := o.v.(type) {
		case *nic.MR:
			if strings.HasSuffix(a.s, ".local_token") {
				t = ad.GetLocalTokenFromMr(v)
			} else {
				t = ad.GetRemoteTokenFromMr(v)
			}
		case *nic.MW:
			t = ad.GetRemoteTokenFromMw(v)
		case *nic.PD:
			t = ad.GetPrivilegedMemoryRegionToken(v)
		default:
			r.fail(st, "%s has no token", base)
		}
	}
	if xor != nil {
		t ^= uint32(xor.u)
	}
	if keyPlus != nil {
		t = t&^0xFF | (t+uint32(keyPlus.u))&0xFF
	}
	return t
}

func (r *scRunner) sge(st *ScenarioStep, a *scArg) nic.SGE {
	g := nic.SGE{VirtualAddress: a.sub["va"].u, Length: uint32(a.sub["length"].u)}
	if m := a.sub["mr"]; m != nil {
		mr, h := scGet[*nic.MR](r, st, m, "MR")
		if mr != nil {
			g.Token = r.ads[h].GetLocalTokenFromMr(mr)
		}
	} else {
		g.Token = r.token(st, a.sub["token"], nil, nil)
	}
	return g
}

func argU(a map[string]*scArg, k string, def uint64) uint64 {
	if v := a[k]; v != nil {
		return v.u
	}
	return def
}

// callback returns a RequestCompletion that reports and checks the callback.
func (r *scRunner) callback(st *ScenarioStep, obj string) (nic.RequestCompletion, *scCallback) {
	cb := &scCallback{step: st, obj: obj}
	r.cbs = append(r.cbs, cb)
	return func(ctx uint64, s nic.Status) { r.fired(cb, s, ctx) }, cb
}

func (r *scRunner) fired(cb *scCallback, s nic.Status, ctx uint64) {
	cb.got = &s
	r.emit(ScenarioLine{Step: cb.step.Index, Name: cb.step.Name, Op: cb.step.Op + ".callback", Object: cb.obj,
		Status: s.String(), Value: fmt.Sprintf("0x%08X", uint32(s)), Ctx: ctx})
	if cb.step.Callback != nil && *cb.step.Callback != s {
		r.fail(cb.step, "callback for %s: expected %s, got %s", cb.obj, *cb.step.Callback, s)
	}
}

func (r *scRunner) newObj(st *ScenarioStep, a *scArg) (string, int, bool) {
	if r.objs[a.s] != nil {
		r.fail(st, "object %s already exists", a.s)
		return "", 0, false
	}
	if len(r.objs) >= ScenarioObjectsMax {
		r.fail(st, "more than %d objects", ScenarioObjectsMax)
		return "", 0, false
	}
	h, _, _ := strings.Cut(a.s, ".")
	return a.s, r.hostIdx[h], true
}

func (r *scRunner) step(st *ScenarioStep) {
	a := st.Args
	ctx := argU(a, "ctx", 0)
	var status nic.Status
	object := ""
	noStatus := false
	switch st.Op {
	case "create_pd":
		name, h, ok := r.newObj(st, a["pd"])
		if !ok {
			return
		}
		var pd *nic.PD
		status, pd = r.ads[h].CreatePD()
		object = name
		if status == nic.StatusSuccess {
			r.objs[name] = &scObj{h, pd}
		}
	case "create_cq":
		name, h, ok := r.newObj(st, a["cq"])
		if !ok {
			return
		}
		var cq *nic.CQ
		status, cq = r.ads[h].CreateCQ(uint32(min(a["depth"].u, 1<<31)))
		object = name
		if status == nic.StatusSuccess {
			r.objs[name] = &scObj{h, cq}
		}
	case "create_qp":
		name, h, ok := r.newObj(st, a["qp"])
		pd, _ := scGet[*nic.PD](r, st, a["pd"], "PD")
		cq, _ := scGet[*nic.CQ](r, st, a["cq"], "CQ")
		if !ok || r.failure != nil {
			return
		}
		var qp *nic.QP
		status, qp = r.ads[h].CreateQP(pd, cq, ctx, uint32(min(argU(a, "depth", 64), 1<<31)), uint32(min(argU(a, "receive_depth", 64), 1<<31)))
		object = name
		if status == nic.StatusSuccess {
			r.objs[name] = &scObj{h, qp}
		}
	case "connect":
		qa, _ := scGet[*nic.QP](r, st, a["a"], "QP")
		qb, _ := scGet[*nic.QP](r, st, a["b"], "QP")
		if r.failure != nil {
			return
		}
		object = a["a"].s + "," + a["b"].s
		status = nic.StatusSuccess
		if err := nic.ConnectQPs(qa, qb); err != nil {
			r.fail(st, "connect: %v", err)
			return
		}
	case "create_mr":
		name, h, ok := r.newObj(st, a["mr"])
		pd, _ := scGet[*nic.PD](r, st, a["pd"], "PD")
		if !ok || r.failure != nil {
			return
		}
		cb := &scCallback{step: st, obj: name}
		var mr *nic.MR
		status, mr = r.ads[h].CreateMr(pd, a["fast_register"] != nil && a["fast_register"].b, func(c uint64, s nic.Status, m *nic.MR) {
			if s == nic.StatusSuccess && m != nil {
				r.objs[name] = &scObj{h, m}
			}
			r.fired(cb, s, c)
		}, ctx)
		object = name
		if status == nic.StatusPending {
			r.cbs = append(r.cbs, cb)
		} else if status == nic.StatusSuccess {
			r.objs[name] = &scObj{h, mr}
		}
	case "create_mw":
		name, h, ok := r.newObj(st, a["mw"])
		pd, _ := scGet[*nic.PD](r, st, a["pd"], "PD")
		if !ok || r.failure != nil {
			return
		}
		cb := &scCallback{step: st, obj: name}
		var mw *nic.MW
		status, mw = r.ads[h].CreateMw(pd, func(c uint64, s nic.Status, m *nic.MW) {
			if s == nic.StatusSuccess && m != nil {
				r.objs[name] = &scObj{h, m}
			}
			r.fired(cb, s, c)
		}, ctx)
		object = name
		if status == nic.StatusPending {
			r.cbs = append(r.cbs, cb)
		} else if status == nic.StatusSuccess {
			r.objs[name] = &scObj{h, mw}
		}
	case "init_fr_mr":
		mr, h := scGet[*nic.MR](r, st, a["mr"], "MR")
		if r.failure != nil {
			return
		}
		object = a["mr"].s
		done, cb := r.callback(st, object)
		status = r.ads[h].InitializeFastRegisterMr(mr, uint32(min(a["pages"].u, 1<<31)), a["remote_access"] != nil && a["remote_access"].b, done, ctx)
		r.settle(cb, status)
	case "register_mr":
		mr, h := scGet[*nic.MR](r, st, a["mr"], "MR")
		if r.failure != nil {
			return
		}
		object = a["mr"].s
		va, n := a["va"].u, a["length"].u
		pieces := max(argU(a, "pieces", 1), 1)
		var chain []nic.MDL
		if pieces > 64 {
			r.fail(st, "pieces %d is more than 64", pieces)
			return
		}
		// Split at page boundaries into at most pieces pieces.
		cur, end := va, va+n
		for i := uint64(0); i < pieces && cur < end; i++ {
			next := end
			if i+1 < pieces {
				next = min(end, (cur/nic.PageSizeBytes+1)*nic.PageSizeBytes)
			}
			chain = append(chain, nic.MDL{VirtualAddress: cur, ByteCount: next - cur})
			cur = next
		}
		done, cb := r.callback(st, object)
		status = r.ads[h].RegisterMr(mr, chain, n, nic.MRFlags(argU(a, "flags", 0)), done, ctx)
		r.settle(cb, status)
	case "deregister_mr":
		mr, h := scGet[*nic.MR](r, st, a["mr"], "MR")
		if r.failure != nil {
			return
		}
		object = a["mr"].s
		done, cb := r.callback(st, object)
		status = r.ads[h].DeregisterMr(mr, done, ctx)
		r.settle(cb, status)
	case "fast_register":
		qp, h := scGet[*nic.QP](r, st, a["qp"], "QP")
		mr, _ := scGet[*nic.MR](r, st, a["mr"], "MR")
		if r.failure != nil {
			return
		}
		object = a["qp"].s
		base := argU(a, "page_base", 0x8000_0000)
		pages := make([]uint64, a["pages"].u)
		for i := range pages {
			pages[i] = base + uint64(i)*nic.PageSizeBytes
		}
		status = r.ads[h].FastRegister(qp, ctx, mr, pages, uint32(min(argU(a, "fbo", 0), 1<<31)), a["length"].u, argU(a, "base_va", argU(a, "fbo", 0)), nic.OpFlags(argU(a, "flags", 0)))
	case "bind":
		qp, h := scGet[*nic.QP](r, st, a["qp"], "QP")
		mw, _ := scGet[*nic.MW](r, st, a["mw"], "MW")
		mr, _ := scGet[*nic.MR](r, st, a["mr"], "MR")
		if r.failure != nil {
			return
		}
		object = a["qp"].s
		status = r.ads[h].Bind(qp, ctx, mr, mw, a["va"].u, a["length"].u, nic.OpFlags(argU(a, "flags", 0)))
	case "invalidate":
		qp, h := scGet[*nic.QP](r, st, a["qp"], "QP")
		t := r.obj(st, a["target"])
		if r.failure != nil {
			return
		}
		object = a["qp"].s
		switch v := t.v.(type) {
		case *nic.MR:
			status = r.ads[h].Invalidate(qp, ctx, v, nic.OpFlags(argU(a, "flags", 0)))
		case *nic.MW:
			status = r.ads[h].InvalidateMw(qp, ctx, v, nic.OpFlags(argU(a, "flags", 0)))
		default:
			r.fail(st, "%s is not an MR or MW", a["target"].s)
			return
		}
	case "write", "read", "send", "send_and_invalidate", "receive":
		qp, h := scGet[*nic.QP](r, st, a["qp"], "QP")
		if r.failure != nil {
			return
		}
		g := r.sge(st, a["local"])
		var rva uint64
		var rtok uint32
		if rm := a["remote"]; rm != nil {
			rva = rm.sub["va"].u
			rtok = r.token(st, rm.sub["token"], rm.sub["token_xor"], rm.sub["token_key_plus"])
		}
		if t := a["token"]; t != nil {
			rtok = r.token(st, t, a["token_xor"], a["token_key_plus"])
		}
		if r.failure != nil {
			return
		}
		object = a["qp"].s
		fl := nic.OpFlags(argU(a, "flags", 0))
		ad := r.ads[h]
		switch st.Op {
		case "write":
			status = ad.Write(qp, ctx, g, rva, rtok, fl)
		case "read":
			status = ad.Read(qp, ctx, g, rva, rtok, fl)
		case "send":
			status = ad.Send(qp, ctx, g, fl)
		case "send_and_invalidate":
			status = ad.SendAndInvalidate(qp, ctx, g, rtok, fl)
		default:
			status = ad.Receive(qp, ctx, g)
		}
	case "flush":
		qp, h := scGet[*nic.QP](r, st, a["qp"], "QP")
		if r.failure != nil {
			return
		}
		object = a["qp"].s
		status = r.ads[h].Flush(qp)
	case "close":
		o := r.obj(st, a["object"])
		if o == nil {
			return
		}
		object = a["object"].s
		done, cb := r.callback(st, object)
		status = r.ads[o.host].CloseObject(o.v, done, ctx)
		r.settle(cb, status)
	case "run":
		noStatus = true
		if a["until"] != nil {
			r.env.Engine.Run()
		} else {
			r.env.Engine.RunUntil(r.env.Engine.Now() + sim.Tick(min(a["us"].u, 1<<40)*1_000_000))
		}
		r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: st.Op})
		return
	case "poll":
		r.poll(st)
		return
	case "fill", "check":
		r.memory(st)
		return
	}
	if r.failure != nil || noStatus {
		return
	}
	r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: st.Op, Object: object, Status: status.String(),
		Value: fmt.Sprintf("0x%08X", uint32(status)), Ctx: ctx})
	if st.Expect != nil && *st.Expect != status {
		r.fail(st, "%s on %s: expected %s, got %s (0x%08X)", st.Op, object, *st.Expect, status, uint32(status))
	}
	if st.Callback != nil && status != nic.StatusPending {
		r.fail(st, "%s on %s: callback %s expected, but the call returned %s (no callback)", st.Op, object, *st.Callback, status)
	}
}

// settle forgets the callback record of a call that did not pend.
func (r *scRunner) settle(cb *scCallback, status nic.Status) {
	if status != nic.StatusPending {
		for i, c := range r.cbs {
			if c == cb {
				r.cbs = append(r.cbs[:i], r.cbs[i+1:]...)
				break
			}
		}
	}
}

func (r *scRunner) poll(st *ScenarioStep) {
	cq, h := scGet[*nic.CQ](r, st, st.Args["cq"], "CQ")
	if r.failure != nil {
		return
	}
	res := r.ads[h].GetCQResults(cq, int(min(argU(st.Args, "max", 1<<20), 1<<20)))
	r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: "poll", Object: st.Args["cq"].s, Detail: fmt.Sprintf("%d results", len(res))})
	for _, x := range res {
		r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: "completion", Object: st.Args["cq"].s, Status: x.Status.String(),
			Value: fmt.Sprintf("0x%08X", uint32(x.Status)), Type: x.Type.String(), Ctx: x.RequestContext, Bytes: x.BytesTransferred})
	}
	if len(res) != len(st.Polls) {
		r.fail(st, "poll %s: expected %d completions, got %d%s", st.Args["cq"].s, len(st.Polls), len(res), describeResults(res))
		return
	}
	for i, p := range st.Polls {
		x := res[i]
		bad := x.Status != p.status || p.typ != nil && *p.typ != x.Type || p.ctx != nil && *p.ctx != x.RequestContext ||
			p.bytes != nil && *p.bytes != uint64(x.BytesTransferred)
		if p.token != nil && !bad {
			bad = uint64(r.token(st, p.token, nil, nil)) != x.TypeSpecific
		}
		if bad {
			want := p.status.String()
			if p.typ != nil {
				want += " " + p.typ.String()
			}
			if p.ctx != nil {
				want += fmt.Sprintf(" ctx %d", *p.ctx)
			}
			if p.bytes != nil {
				want += fmt.Sprintf(" bytes %d", *p.bytes)
			}
			r.fail(st, "poll %s: completion %d: expected %s, got %s %s ctx %d bytes %d type_specific 0x%X", st.Args["cq"].s, i,
				want, x.Status, x.Type, x.RequestContext, x.BytesTransferred, x.TypeSpecific)
			return
		}
	}
}

func describeResults(res []nic.Result) string {
	if len(res) == 0 {
		return ""
	}
	parts := make([]string, len(res))
	for i, x := range res {
		parts[i] = fmt.Sprintf("%s %s ctx %d", x.Status, x.Type, x.RequestContext)
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// scPattern is the seeded pattern (splitmix64 stream) at offset i.
func scPattern(seed uint64, n int) []byte {
	b := make([]byte, n)
	var x uint64
	for i := range b {
		if i%8 == 0 {
			z := seed + uint64(i/8+1)*0x9E3779B97F4A7C15
			z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
			z = (z ^ z>>27) * 0x94D049BB133111EB
			x = z ^ z>>31
		}
		b[i] = byte(x >> (8 * (i % 8)))
	}
	return b
}

func (r *scRunner) memory(st *ScenarioStep) {
	a := st.Args
	mem := r.ads[r.hostIdx[a["host"].s]].Mem()
	va, n := a["va"].u, int(a["length"].u)
	var want []byte
	switch {
	case a["byte"] != nil:
		want = make([]byte, n)
		for i := range want {
			want[i] = byte(a["byte"].u)
		}
	case a["pattern_seed"] != nil:
		want = scPattern(a["pattern_seed"].u, n)
	default:
		e := a["equals"].sub
		want = make([]byte, n)
		r.ads[r.hostIdx[e["host"].s]].Mem().Read(e["va"].u, want)
	}
	obj := fmt.Sprintf("%s:0x%X+%d", a["host"].s, va, n)
	if va+uint64(n) < va {
		r.fail(st, "%s %s: the range wraps past 2^64", st.Op, obj)
		return
	}
	if st.Op == "fill" {
		mem.Write(va, want)
		r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: "fill", Object: obj})
		return
	}
	got := make([]byte, n)
	mem.Read(va, got)
	for i := range got {
		if got[i] != want[i] {
			r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: "check", Object: obj, Detail: "mismatch"})
			r.fail(st, "check %s: byte at 0x%X (offset %d) is 0x%02X, expected 0x%02X", obj, va+uint64(i), i, got[i], want[i])
			return
		}
	}
	r.emit(ScenarioLine{Step: st.Index, Name: st.Name, Op: "check", Object: obj, Detail: "ok"})
}
