package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// Failure is the first failed expectation of a scenario run.
type Failure struct {
	File string
	Step int
	Name string
	Line int
	Msg  string
}

func (f *Failure) Error() string {
	name := ""
	if f.Name != "" {
		name = fmt.Sprintf(" %q", f.Name)
	}
	return fmt.Sprintf("%s:%d: step %d%s failed: %s", f.File, f.Line, f.Step, name, f.Msg)
}

// Line is one JSON output line: a call, a callback or a completion.
type Line struct {
	Step   int    `json:"step"`
	Name   string `json:"name,omitempty"`
	Op     string `json:"op"`
	Object string `json:"object,omitempty"`
	Status string `json:"status,omitempty"`
	Value  string `json:"value,omitempty"`
	Type   string `json:"type,omitempty"`
	Ctx    uint64 `json:"ctx,omitempty"`
	Bytes  uint32 `json:"bytes,omitempty"`
	Token  string `json:"token,omitempty"` // a token read (save_token, compare_tokens) or a completion's TypeSpecific
	Saved  string `json:"saved,omitempty"` // the name save_token saved it under
	Detail string `json:"detail,omitempty"`
	TimePS uint64 `json:"time_ps"`
}

// obj is a created object and the host it lives on.
type obj struct {
	host int
	v    any // *nic.PD, *nic.CQ, *nic.QP, *nic.MR, *nic.MW
}

// callbackRec is a callback a pending call owes.
type callbackRec struct {
	step  *Step
	obj   string
	got   *nic.Status
	ret   *nic.Status // what the call returned
	fires int
}

type runner struct {
	s       *Scenario
	env     *sim.Env
	ads     []*nic.Adapter
	hostIdx map[string]int
	objs    map[string]*obj
	out     io.Writer
	cbs     []*callbackRec
	saved   map[string]uint32 // tokens saved by save_token, by name
	failure *Failure
}

// Run executes the scenario, writing one JSON line per call, callback and
// completion to out. It returns a *Failure at the first failed
// expectation, or another error when the model cannot be built.
func (s *Scenario) Run(out io.Writer) error {
	r := &runner{s: s, env: sim.NewEnv(1), hostIdx: map[string]int{}, objs: map[string]*obj{}, out: out, saved: map[string]uint32{}}
	if err := r.build(); err != nil {
		return err
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

// build makes one adapter per host on a PCIe link of its own, and the wire
// between two hosts.
func (r *runner) build() error {
	for i, h := range r.s.Hosts {
		link, err := pcie.New(h.Name+".PCIe", pcie.DefaultSpec(), r.env, sim.ClockDomain{Name: h.Name + ".Clock", Period: sim.Tick(h.Spec.ClockPeriodPS)})
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
		if _, err := nic.NewWire("Wire", r.s.Wire, r.ads[0], r.ads[1]); err != nil {
			return err
		}
	}
	return nil
}

// safeStep runs one step; a write the model's host memory refused (beyond
// host_memory_pages_max) or a panic of the model fails the step instead of
// ending the process.
func (r *runner) safeStep(st *Step) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(st, "%s: the model failed: %v", st.Op, p)
		}
	}()
	r.step(st)
	for i, a := range r.ads {
		if err := a.Mem().Err(); err != nil {
			r.fail(st, "%s: host %s: %v", st.Op, r.s.Hosts[i].Name, err)
		}
	}
}

// step runs one step through its operation's method; a call's status is
// printed and checked against the step's expect and callback.
func (r *runner) step(st *Step) {
	ctx := st.Args.u("ctx", 0)
	c, ok := ops[st.Op].run(r, st, st.Args, ctx)
	if !ok || r.failure != nil {
		return
	}
	r.emit(Line{Step: st.Index, Name: st.Name, Op: st.Op, Object: c.object, Status: c.status.String(),
		Value: fmt.Sprintf("0x%08X", uint32(c.status)), Ctx: ctx})
	if st.Expect != nil && *st.Expect != c.status {
		r.fail(st, "%s on %s: expected %s, got %s (0x%08X)", st.Op, c.object, *st.Expect, c.status, uint32(c.status))
	}
	if st.Callback != nil && c.status != nic.StatusPending {
		r.fail(st, "%s on %s: callback %s expected, but the call returned %s (no callback)", st.Op, c.object, *st.Callback, c.status)
	}
}

func (r *runner) now() uint64 { return uint64(r.env.Engine.Now()) }

func (r *runner) emit(l Line) {
	l.TimePS = r.now()
	b, _ := json.Marshal(l)
	fmt.Fprintf(r.out, "%s\n", b)
}

func (r *runner) fail(st *Step, format string, args ...any) {
	if r.failure == nil {
		r.failure = &Failure{File: r.s.File, Step: st.Index, Name: st.Name, Line: st.Line, Msg: fmt.Sprintf(format, args...)}
	}
}

func (r *runner) obj(st *Step, a *arg) *obj {
	o := r.objs[a.s]
	if o == nil {
		r.fail(st, "object %s does not exist (not created, or its creation did not succeed)", a.s)
	}
	return o
}

// get is the object a names, which must be a T (what names T in messages),
// and its host.
func get[T any](r *runner, st *Step, a *arg, what string) (T, int) {
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

// newObj checks that the object a names can be created, and returns its
// name and host.
func (r *runner) newObj(st *Step, a *arg) (string, int, bool) {
	if r.objs[a.s] != nil {
		r.fail(st, "object %s already exists", a.s)
		return "", 0, false
	}
	if len(r.objs) >= ObjectsMax {
		r.fail(st, "more than %d objects", ObjectsMax)
		return "", 0, false
	}
	h, _, _ := strings.Cut(a.s, ".")
	return a.s, r.hostIdx[h], true
}

// token resolves a token argument and its alterations.
func (r *runner) token(st *Step, a *arg, xor, keyPlus *arg) uint32 {
	var t uint32
	if name, ok := strings.CutPrefix(a.s, "$"); ok {
		v, ok := r.saved[name]
		if !ok {
			r.fail(st, "token %s is not saved yet", a.s)
		}
		t = v
	} else if a.isNum {
		t = uint32(a.u)
	} else {
		base := a.s[:strings.LastIndex(a.s, ".")]
		o := r.obj(st, &arg{s: base})
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

func (r *runner) sge(st *Step, a *arg) nic.SGE {
	g := nic.SGE{VirtualAddress: a.sub["va"].u, Length: uint32(a.sub["length"].u)}
	if m := a.sub["mr"]; m != nil {
		mr, h := get[*nic.MR](r, st, m, "MR")
		if mr != nil {
			g.Token = r.ads[h].GetLocalTokenFromMr(mr)
		}
	} else {
		g.Token = r.token(st, a.sub["token"], nil, nil)
	}
	return g
}

// callback returns a RequestCompletion that reports and checks the callback.
func (r *runner) callback(st *Step, object string) (nic.RequestCompletion, *callbackRec) {
	cb := &callbackRec{step: st, obj: object}
	r.cbs = append(r.cbs, cb)
	return func(ctx uint64, s nic.Status) { r.fired(cb, s, ctx) }, cb
}

func (r *runner) fired(cb *callbackRec, s nic.Status, ctx uint64) {
	cb.got = &s
	cb.fires++
	r.emit(Line{Step: cb.step.Index, Name: cb.step.Name, Op: cb.step.Op + ".callback", Object: cb.obj,
		Status: s.String(), Value: fmt.Sprintf("0x%08X", uint32(s)), Ctx: ctx})
	if cb.step.Callback != nil && *cb.step.Callback != s {
		r.fail(cb.step, "callback for %s: expected %s, got %s", cb.obj, *cb.step.Callback, s)
	}
	r.checkOneCallback(cb)
}

// checkOneCallback fails the step of a call whose callback fired although
// the call did not return STATUS_PENDING, or fired more than once
// (docs/ndk.md rule 1).
func (r *runner) checkOneCallback(cb *callbackRec) {
	switch {
	case cb.fires > 1:
		r.fail(cb.step, "callback for %s fired %d times, expected once (docs/ndk.md rule 1)", cb.obj, cb.fires)
	case cb.fires > 0 && cb.ret != nil && *cb.ret != nic.StatusPending:
		r.fail(cb.step, "callback for %s fired after the call returned %s inline (docs/ndk.md rule 1: no callback follows)", cb.obj, *cb.ret)
	}
}

// settle records what a call returned and forgets the callback record of a
// call that did not pend.
func (r *runner) settle(cb *callbackRec, status nic.Status) {
	cb.ret = &status
	r.checkOneCallback(cb)
	if status != nic.StatusPending {
		for i, c := range r.cbs {
			if c == cb {
				r.cbs = append(r.cbs[:i], r.cbs[i+1:]...)
				break
			}
		}
	}
}
