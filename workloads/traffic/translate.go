package traffic

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// translate: one operation is one lookup of the NIC's translation unit
// (mtt.Translator.Lookup) of a drawn range of a registered region.

var accesses = map[string]mtt.Access{
	"local_read": mtt.AccessLocalRead, "local_write": mtt.AccessLocalWrite,
	"remote_read": mtt.AccessRemoteRead, "remote_write": mtt.AccessRemoteWrite,
}

type translateSource struct {
	tr     *mtt.Translator
	region *BuiltRegion
	p      *workloads.TranslateParams
	access mtt.Access
	rng    *rand.Rand
	reqs   []mtt.Request
	done   Done
}

func (s *translateSource) Start(now sim.Tick, op *Op, done Done) error {
	if !s.tr.CanAccept() {
		return ErrBusy
	}
	s.done = done
	n := s.p.LengthBytes.Sample(s.rng)
	off := drawOffset(s.p.OffsetBytes, s.rng, s.region.Bytes(), n, s.p.AlignBytes)
	r := &s.reqs[op.Index]
	*r = mtt.Request{Token: s.region.Token, PD: 1, VA: s.region.BaseVA + off, Length: n, Access: s.access, Pages: r.Pages}
	op.Units = 1
	return s.tr.Lookup(r, s, op.Index)
}

// Handle is the translator's done call.
func (s *translateSource) Handle(now sim.Tick, index uint64) {
	if r := s.reqs[index].Reason; r != mtt.OK {
		s.done.Fail(now, index, r.String())
		return
	}
	s.done.Handle(now, index)
}

func newTranslateSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	p := g.Params.(*workloads.TranslateParams)
	r, ok := m.Region(p.Region)
	if !ok {
		return nil, fmt.Errorf("no region %q", p.Region)
	}
	s := &translateSource{tr: m.TPT, region: r, p: p, access: accesses[p.Access], rng: rng,
		reqs: make([]mtt.Request, g.Streams*g.Outstanding)}
	for i := range s.reqs {
		s.reqs[i].Pages = make([]uint64, 0, 2)
	}
	return s, nil
}

// Figure: a translation moves no payload.
func (s *translateSource) Figure() (string, string) { return "translations", "M/s" }

// Scope: the translation unit and the PCIe link.
func (s *translateSource) Scope() Scope { return ScopeTranslate }

func init() { RegisterSource("translate", newTranslateSource) }
