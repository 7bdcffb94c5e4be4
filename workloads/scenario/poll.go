package scenario

import (
	"fmt"
	"strings"

	"github.com/nicsim/nicsim/nic"
)

// poll takes the CQ's results, prints each as a completion line and checks
// them against the step's expected completions, in order.
func (r *runner) poll(st *Step, a args, _ uint64) (call, bool) {
	cq, h := get[*nic.CQ](r, st, a["cq"], "CQ")
	if r.failure != nil {
		return call{}, false
	}
	name := a["cq"].s
	res := r.ads[h].GetCQResults(cq, int(min(a.u("max", 1<<20), 1<<20)))
	r.emit(Line{Step: st.Index, Name: st.Name, Op: "poll", Object: name, Detail: fmt.Sprintf("%d results", len(res))})
	for _, x := range res {
		r.emit(Line{Step: st.Index, Name: st.Name, Op: "completion", Object: name, Status: x.Status.String(),
			Value: fmt.Sprintf("0x%08X", uint32(x.Status)), Type: x.Type.String(), Ctx: x.RequestContext, Bytes: x.BytesTransferred})
	}
	if st.Polls == nil {
		return call{}, false // no expect: printed, not checked
	}
	if len(res) != len(st.Polls) {
		r.fail(st, "poll %s: expected %d completions, got %d%s", name, len(st.Polls), len(res), describeResults(res))
		return call{}, false
	}
	for i, p := range st.Polls {
		x := res[i]
		if r.matches(st, &p, &x) {
			continue
		}
		r.fail(st, "poll %s: completion %d: expected %s, got %s %s ctx %d bytes %d type_specific 0x%X", name, i,
			p.String(), x.Status, x.Type, x.RequestContext, x.BytesTransferred, x.TypeSpecific)
		return call{}, false
	}
	return call{}, false
}

// matches reports whether completion x is what p expects.
func (r *runner) matches(st *Step, p *poll, x *nic.Result) bool {
	bad := x.Status != p.status || p.typ != nil && *p.typ != x.Type || p.ctx != nil && *p.ctx != x.RequestContext ||
		p.bytes != nil && *p.bytes != uint64(x.BytesTransferred)
	if p.token != nil && !bad {
		bad = uint64(r.token(st, p.token, nil, nil)) != x.TypeSpecific
	}
	return !bad
}

// String is the expected completion, as failures name it.
func (p *poll) String() string {
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
	return want
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
