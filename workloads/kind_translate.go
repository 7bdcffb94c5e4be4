package workloads

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/sim"
)

// translate: one data-path translation through the translation unit
// (mtt.Translator.Lookup): key-table (MPT) entry, protection checks, then
// the MTT line of every page the range touches, each a cache hit or a DMA
// read of ICM over PCIe. Random lookups over a region larger than the MTT
// cache's reach (entries x page size) show the translation-reach cliff.

type translateParams struct {
	Region      string `yaml:"region" json:"region" check:"len:0..64"`
	LengthBytes Dist   `yaml:"length_bytes" json:"length_bytes" check:"1..2^30"`
	OffsetBytes *Dist  `yaml:"offset_bytes" json:"offset_bytes,omitempty" check:"0..2^48"`
	AlignBytes  uint64 `yaml:"align_bytes" json:"align_bytes" check:"pow2 1..2^30"`
	Access      string `yaml:"access" json:"access" check:"remote_read|remote_write|local_read|local_write"`
}

func newTranslateParams() any {
	return &translateParams{LengthBytes: Fixed(64), AlignBytes: 64, Access: "remote_read"}
}

func checkTranslate(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*translateParams)
	if p.Region == "" {
		c.Errorf("", "region is required: the name of a region under regions")
		return
	}
	r, ok := w.regionByName(p.Region)
	if !ok {
		names := make([]string, len(w.Regions))
		for i, r := range w.Regions {
			names[i] = r.Name
		}
		c.Errorf("region", "no region named %q; regions: %s", p.Region, strings.Join(names, ", "))
		return
	}
	if l := p.LengthBytes.Largest(); l > r.Bytes() {
		c.Errorf("length_bytes", "lengths up to %d bytes do not fit region %q of %d bytes", l, r.Name, r.Bytes())
	}
}

var accesses = map[string]mtt.Access{
	"local_read": mtt.AccessLocalRead, "local_write": mtt.AccessLocalWrite,
	"remote_read": mtt.AccessRemoteRead, "remote_write": mtt.AccessRemoteWrite,
}

type translateSource struct {
	tr     *mtt.Translator
	region *BuiltRegion
	p      *translateParams
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
	op.Bytes = n
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

func init() {
	RegisterKind(Kind{Name: "translate",
		Summary: "one data-path translation (MPT entry, checks, MTT lines) through the on-NIC caches, misses read ICM over PCIe",
		Params:  newTranslateParams, Check: checkTranslate,
		New: func(m *Model, g *Generator, rng *rand.Rand) (Source, error) {
			p := g.Params.(*translateParams)
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
		}})
}
