package mtt

import "github.com/nicsim/nicsim/sim"

// TableStats counts one table's cache activity.
type TableStats struct {
	Lookups       uint64        `stat:"Lookups" unit:"accesses" desc:"cache accesses started (one per line)"`
	Hits          uint64        `stat:"Hits" unit:"accesses" desc:"accesses that hit"`
	Misses        uint64        `stat:"Misses" unit:"accesses" desc:"accesses that missed and read the line from ICM"` // allocating an MSHR
	MergedMisses  uint64        `stat:"MergedMisses" unit:"accesses" desc:"misses merged onto an MSHR already reading the line"`
	MSHRStalls    uint64        `stat:"MSHRStalls" unit:"stalls" desc:"times a miss found every MSHR busy; the cache's queue then waits for a fill (not cycles: the unit sleeps until woken)"`
	Evictions     uint64        `stat:"Evictions" unit:"lines" desc:"valid lines replaced by fills"`
	Updates       uint64        `stat:"Updates" unit:"lines" desc:"cached lines written through by registrations"` // write-update
	Invalidations uint64        `stat:"Invalidations" unit:"lines" desc:"cached lines dropped by registrations"`   // write-invalidate
	ICMReadBytes  uint64        `stat:"ICMReadBytes" unit:"bytes" desc:"bytes read from ICM by DMA"`               // fills
	ICMWriteBytes uint64        `stat:"ICMWriteBytes" unit:"bytes" desc:"bytes written to ICM by DMA"`             // registrations
	LatencyPS     sim.Histogram `stat:"LatencyPS" unit:"ps" desc:"access latency from port to answer"`             // hit or fill
}

// Stats are the translator's statistics.
type Stats struct {
	MPT, MTT   TableStats
	Requests   uint64              `stat:"Translate.Requests" unit:"requests" desc:"translate requests completed"`
	Refused    uint64              `stat:"Translate.Refused" unit:"requests" desc:"translate requests refused by a check"`
	ByReason   [ReasonCount]uint64 // requests by outcome
	RequestPS  sim.Histogram       `stat:"Translate.LatencyPS" unit:"ps" desc:"request latency from Lookup to done"`
	DMAStalls  uint64              `stat:"Translate.DMAStalls" unit:"stalls" desc:"times a DMA request found no room in the DMA queue; the unit then waits for room (not cycles: it sleeps until woken)"`
	WritesDone uint64              `stat:"Translate.WritesDone" unit:"writes" desc:"registration writes completed"` // WriteMPT/WriteMTT
}

// HitRate is hits / (hits + misses + merged misses); 0 with no accesses.
func HitRate(s *TableStats) float64 {
	n := s.Hits + s.Misses + s.MergedMisses
	if n == 0 {
		return 0
	}
	return float64(s.Hits) / float64(n)
}

// Register names every statistic under prefix (e.g. "NIC[0]"), as
// prefix.MPTCache.Hits, prefix.MTTCache.Hits, prefix.Translate.Requests, ...
func (s *Stats) Register(r *sim.Registry, prefix string) error {
	for _, t := range []struct {
		name string
		ts   *TableStats
	}{{"MPTCache", &s.MPT}, {"MTTCache", &s.MTT}} {
		p := prefix + "." + t.name + "."
		ts := t.ts
		if err := r.Struct(p, ts); err != nil {
			return err
		}
		if err := r.Formula(p+"HitRate", "ratio", "hits / all accesses", func() float64 { return HitRate(ts) }); err != nil {
			return err
		}
	}
	for i := 1; i < ReasonCount; i++ {
		if err := r.Counter(prefix+".Translate.Refused."+Reason(i).String(), "requests", "requests refused for this reason", &s.ByReason[i]); err != nil {
			return err
		}
	}
	return r.Struct(prefix+".", s)
}
