package scenario

import (
	"fmt"
	"strings"

	"github.com/nicsim/nicsim/nic"
)

// poll takes the CQ's results, prints each as a completion line and checks
// them against the step's expected completions: in order, or, with
// any_order, as a set (each completion matches a different expectation).
func (r *runner) poll(st *Step, a args, _ uint64) (call, bool) {
	cq, h := get[*nic.CQ](r, st, a["cq"], "CQ")
	if r.failure != nil {
		return call{}, false
	}
	name := a["cq"].s
	res := r.ads[h].GetCQResults(cq, int(min(a.u("max", 1<<20), 1<<20)))
	r.emit(Line{Step: st.Index, Name: st.Name, Op: "poll", Object: name, Detail: fmt.Sprintf("%d results", len(res))})
	for _, x := range res {
		l := Line{Step: st.Index, Name: st.Name, Op: "completion", Object: name, Status: x.Status.String(),
			Value: fmt.Sprintf("0x%08X", uint32(x.Status)), Type: x.Type.String(), Ctx: x.RequestContext, Bytes: x.BytesTransferred}
		if x.TypeSpecific != 0 {
			l.Token = fmt.Sprintf("0x%08X", x.TypeSpecific)
		}
		r.emit(l)
	}
	if st.Polls == nil {
		return call{}, false // no expect: printed, not checked
	}
	if len(res) != len(st.Polls) {
		r.fail(st, "poll %s: expected %d completions, got %d%s", name, len(st.Polls), len(res), describeResults(res))
		return call{}, false
	}
	if a.flag("any_order") {
		if i := r.unmatched(st, res); i >= 0 {
			r.fail(st, "poll %s: no completion left for expected %s (any order)%s", name, st.Polls[i].String(), describeResults(res))
		}
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

// unmatched pairs each expected completion with a different result
// (bipartite matching by augmenting paths) and returns the index of an
// expectation left without one, or -1 when all are matched.
func (r *runner) unmatched(st *Step, res []nic.Result) int {
	n := len(res)
	ok := make([][]bool, n) // ok[e][x]: expectation e accepts result x
	for e := range st.Polls {
		ok[e] = make([]bool, n)
		for x := range res {
			ok[e][x] = r.matches(st, &st.Polls[e], &res[x])
		}
	}
	owner := make([]int, n) // result -> expectation, -1 free
	for i := range owner {
		owner[i] = -1
	}
	var try func(e int, seen []bool) bool
	try = func(e int, seen []bool) bool {
		for x := range n {
			if ok[e][x] && !seen[x] {
				seen[x] = true
				if owner[x] < 0 || try(owner[x], seen) {
					owner[x] = e
					return true
				}
			}
		}
		return false
	}
	for e := range st.Polls {
		if !try(e, make([]bool, n)) {
			return e
		}
	}
	return -1
}

// matches reports whether completion x is what p expects.
func (r *runner) matches(st *Step, p *poll, x *nic.Result) bool {
	okStatus := false
	for _, s := range p.status {
		okStatus = okStatus || s == x.Status
	}
	bad := !okStatus || p.typ != nil && *p.typ != x.Type || p.ctx != nil && *p.ctx != x.RequestContext ||
		p.bytes != nil && *p.bytes != uint64(x.BytesTransferred)
	if p.token != nil && !bad {
		bad = uint64(r.token(st, p.token, nil, nil)) != x.TypeSpecific
	}
	return !bad
}

// String is the expected completion, as failures name it.
func (p *poll) String() string {
	names := make([]string, len(p.status))
	for i, s := range p.status {
		names[i] = s.String()
	}
	want := strings.Join(names, " or ")
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
