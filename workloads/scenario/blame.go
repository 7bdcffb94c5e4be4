package scenario

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/workloads"
)

// source is a step field that asks for memory, where a budget error
// points.
type source struct {
	st    *Step
	field string // below the step's operation, such as length or local.length
	at    *arg   // the field's value; nil when not given (the step itself)
}

// path is the source's key path, such as steps.11.register_mr.length.
func (src source) path() string {
	p := fmt.Sprintf("steps.%d.%s", src.st.Index-1, src.st.Op)
	if src.at != nil {
		p += "." + src.field
	}
	return p
}

// node is where the source is: its field's value, or else its step.
func (src source) node() *yaml.Node {
	if src.at != nil && src.at.line > 0 {
		return &yaml.Node{Line: src.at.line, Column: src.at.col}
	}
	return &yaml.Node{Line: src.st.Line, Column: src.st.Col}
}

// budgetSource is the step field that asks for the most of item, an item
// of MemoryEstimate: for host memory, the step whose ranges are largest;
// for objects, the QP or CQ that takes the most. false for an item no step
// asks for (the hosts' tables and histograms).
func (s *Scenario) budgetSource(item workloads.MemoryItem) (source, bool) {
	var best source
	var most uint64
	consider := func(src source, b uint64) {
		if b > most {
			best, most = src, b
		}
	}
	switch item.Name {
	case "host memory":
		s.hostMemorySources(consider)
	case "objects":
		spec := s.specs()
		for _, st := range s.Steps {
			consider(source{st, "depth", st.Args["depth"]}, stepObjectBytes(st, spec))
		}
	}
	return best, most > 0
}

// hostMemorySources calls consider with each step that spans host memory
// and the bytes its ranges span, added up.
func (s *Scenario) hostMemorySources(consider func(source, uint64)) {
	bytes := map[*Step]uint64{}
	first := map[*Step]source{}
	var order []*Step
	for _, spans := range s.writable() {
		for _, sp := range spans {
			if _, ok := first[sp.src.st]; !ok {
				first[sp.src.st] = sp.src
				order = append(order, sp.src.st)
			}
			bytes[sp.src.st] = satAdd(bytes[sp.src.st], sp.hi-sp.lo)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Index < order[j].Index })
	for _, st := range order {
		consider(first[st], bytes[st])
	}
}

// satAdd is a+b, at most the largest uint64.
func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// fastRegisterField is the field of a fast_register step that names its
// pages: page_list, or else pages.
func fastRegisterField(a args) (string, *arg) {
	if pl := a["page_list"]; pl != nil {
		return "page_list", pl
	}
	return "pages", a["pages"]
}
