package workloads

import "strings"

// translate: one data-path translation through the translation unit
// (mtt.Translator.Lookup): key-table (MPT) entry, protection checks, then
// the MTT line of every page the range touches, each a cache hit or a DMA
// read of ICM over PCIe. Random lookups over a region larger than the MTT
// cache's reach (entries x page size) show the translation-reach cliff.

// TranslateParams are the keys of translate.
type TranslateParams struct {
	Region      string `yaml:"region" json:"region" check:"len:0..64"`
	LengthBytes Dist   `yaml:"length_bytes" json:"length_bytes" check:"1..2^30"`
	OffsetBytes *Dist  `yaml:"offset_bytes" json:"offset_bytes,omitempty" check:"0..2^48"`
	AlignBytes  uint64 `yaml:"align_bytes" json:"align_bytes" check:"pow2 1..2^30"`
	Access      string `yaml:"access" json:"access" check:"remote_read|remote_write|local_read|local_write"`
}

func newTranslateParams() any {
	return &TranslateParams{LengthBytes: Fixed(64), AlignBytes: 64, Access: "remote_read"}
}

func checkTranslate(c *Checker, w *Workload, g *Generator) {
	p := g.Params.(*TranslateParams)
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

func init() {
	RegisterKind(Kind{Name: "translate",
		Summary: "one data-path translation (MPT entry, checks, MTT lines) through the on-NIC caches, misses read ICM over PCIe",
		Params:  newTranslateParams, Check: checkTranslate})
}
