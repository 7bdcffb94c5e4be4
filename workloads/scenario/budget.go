package scenario

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// A scenario is held to a memory budget as a workload file is (the
// top-level memory_max_bytes, default workloads.DefaultMemoryMaxBytes):
// the decoder adds up an upper bound of what its hosts and steps can make
// the simulator hold and refuses a scenario above it.

// span is a range [lo, hi) of host memory, and the step field that asks
// for it.
type span struct {
	lo, hi uint64
	src    source
}

// writable is, per host, every range the steps can make the model write:
// fills, registered ranges (register_mr's va and length, or its MDL
// pieces), fast-registered pages, and the local buffers of reads and
// receives (a privileged token reaches any address). Remote writes land in
// registered memory, so nothing else is written.
func (s *Scenario) writable() map[string][]span {
	out := map[string][]span{}
	for _, st := range s.Steps {
		add := func(ref string, lo, n uint64, field string, at *arg) {
			h, _, _ := strings.Cut(ref, ".")
			if n > 0 && lo+n > lo {
				out[h] = append(out[h], span{lo, lo + n, source{st, field, at}})
			}
		}
		a := st.Args
		switch st.Op {
		case "fill":
			add(a["host"].s+".", a.u("va", 0), a.u("length", 0), "length", a["length"])
		case "register_mr":
			if m := a["mdl"]; m != nil {
				for _, p := range m.list {
					add(a["mr"].s, p.sub.u("va", 0), p.sub.u("bytes", 0), "mdl", m)
				}
			} else {
				add(a["mr"].s, a.u("va", 0), a.u("length", 0), "length", a["length"])
			}
		case "fast_register":
			field, at := fastRegisterField(a)
			for _, pg := range fastRegisterPages(a) {
				add(a["qp"].s, pg&^(nic.PageSizeBytes-1), nic.PageSizeBytes, field, at)
			}
		case "read", "receive":
			if l := a["local"]; l != nil {
				add(a["qp"].s, l.sub.u("va", 0), l.sub.u("length", 0), "local.length", l.sub["length"])
			}
		}
	}
	return out
}

// fastRegisterPages is a fast_register step's page list.
func fastRegisterPages(a args) []uint64 {
	if pl := a["page_list"]; pl != nil {
		out := make([]uint64, len(pl.list))
		for i, x := range pl.list {
			out[i] = x.u
		}
		return out
	}
	base, n := a.u("page_base", 0x8000_0000), a.u("pages", 0)
	out := make([]uint64, 0, n)
	for i := range n {
		out = append(out, base+i*nic.PageSizeBytes)
	}
	return out
}

// unionPages is the number of 4 KiB pages the spans touch together.
func unionPages(spans []span) uint64 {
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var pages, end uint64 // end: first page not yet counted
	for _, sp := range spans {
		lo, hi := max(sp.lo/nic.PageSizeBytes, end), (sp.hi-1)/nic.PageSizeBytes+1
		if hi > lo {
			pages += hi - lo
			end = hi
		}
	}
	return pages
}

// MemoryEstimate is the most memory running the scenario takes, by item,
// largest first.
func (s *Scenario) MemoryEstimate() []workloads.MemoryItem {
	spans := s.writable()
	var tables, pages uint64
	for _, h := range s.Hosts {
		tables += nic.TableBytes(h.Spec)
		pages += min(unionPages(spans[h.Name]), uint64(h.Spec.HostMemoryPagesMax))
	}
	hosts := uint64(len(s.Hosts))
	items := []workloads.MemoryItem{
		{Name: "adapter tables", Key: "hosts", Bytes: tables, How: fmt.Sprintf("%d host(s) x key table, MTT image, caches and pipeline stages", hosts)},
		{Name: "host memory", Key: "steps", Bytes: pages * workloads.HostPageBytes,
			How: fmt.Sprintf("%d pages that fills, registrations and local buffers span x %d B", pages, workloads.HostPageBytes)},
		s.objectsItem(),
		{Name: "histograms", Key: "hosts", Bytes: hosts * workloads.HistogramsPerHost * sim.HistogramBytesMax,
			How: fmt.Sprintf("%d latency histograms x %d B", hosts*workloads.HistogramsPerHost, sim.HistogramBytesMax)},
		{Name: "step buffers", Key: "steps", Bytes: 2*BytesMax + PagesMax*8, How: "a fill's or check's bytes, twice, and a page list"},
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Bytes > items[j].Bytes })
	return items
}

// objectsItem is the QPs and CQs the steps create, at the depths they ask
// for (at most the host's limits), and a record per object.
func (s *Scenario) objectsItem() workloads.MemoryItem {
	b := uint64(ObjectsMax) * maxObjectBytes()
	spec := s.specs()
	for _, st := range s.Steps {
		b += stepObjectBytes(st, spec)
	}
	return workloads.MemoryItem{Name: "objects", Key: "steps", Bytes: b, How: "the QPs and CQs the steps create, and a record per object"}
}

// maxObjectBytes is the record of the largest object.
func maxObjectBytes() uint64 {
	o := nic.Objects()
	return max(o.MR, o.MW, o.QP, o.CQ)
}

// specs are the hosts' adapter specs, by host name.
func (s *Scenario) specs() map[string]nic.Spec {
	spec := map[string]nic.Spec{}
	for _, h := range s.Hosts {
		spec[h.Name] = h.Spec
	}
	return spec
}

// stepObjectBytes is the memory of the QP or CQ a step creates, at the
// depths it asks for (at most its host's limits); 0 for other steps.
func stepObjectBytes(st *Step, spec map[string]nic.Spec) uint64 {
	o, a := nic.Objects(), st.Args
	switch st.Op {
	case "create_qp":
		h, _, _ := strings.Cut(a["qp"].s, ".")
		sp := spec[h]
		return o.QPBytes(min(a.u("depth", 64), uint64(sp.MaxInitiatorQueueDepth)), min(a.u("receive_depth", 64), uint64(sp.MaxReceiveQueueDepth)))
	case "create_cq":
		h, _, _ := strings.Cut(a["cq"].s, ".")
		return o.CQBytes(min(a.u("depth", 0), uint64(spec[h].MaxCQDepth)))
	}
	return 0
}

// checkBudget refuses a scenario above its budget, at the step field that
// asks for the most of the largest item a step asks for (budgetSource).
func (d *decoder) checkBudget(s *Scenario, root *yaml.Node, budget uint64) {
	items := s.MemoryEstimate()
	msg := workloads.OverBudget(items, budget, "memory_max_bytes")
	if msg == "" {
		return
	}
	for _, it := range items {
		if src, ok := s.budgetSource(it); ok {
			d.fail(src.node(), src.path(), "%s", msg)
			return
		}
	}
	d.fail(root, items[0].Key, "%s", msg)
}
