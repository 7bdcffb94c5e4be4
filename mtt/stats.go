package mtt

import "github.com/nicsim/nicsim/sim"

// TableStats counts one table's cache activity.
type TableStats struct {
	Lookups       uint64        // cache accesses started (one per line looked up)
	Hits          uint64        // accesses that found the line
	Misses        uint64        // accesses that allocated an MSHR and read the line from ICM
	MergedMisses  uint64        // misses that joined an MSHR already reading the line
	MSHRStalls    uint64        // port cycles lost because every MSHR was busy
	Evictions     uint64        // valid lines replaced by fills
	Updates       uint64        // cached lines written through by a registration (write-update)
	Invalidations uint64        // cached lines dropped by a registration (write-invalidate)
	ICMReadBytes  uint64        // bytes read from ICM by DMA (fills)
	ICMWriteBytes uint64        // bytes written to ICM by DMA (registrations)
	LatencyPS     sim.Histogram // access latency: port to answer (hit or fill), ps
}

// Stats are the translator's statistics.
type Stats struct {
	MPT, MTT   TableStats
	Requests   uint64              // translate requests completed
	Refused    uint64              // requests refused by a check
	ByReason   [ReasonCount]uint64 // requests by outcome
	RequestPS  sim.Histogram       // request latency: Lookup to done, ps
	DMAStalls  uint64              // cycles a DMA request waited for room in the DMA queue
	WritesDone uint64              // registration writes (WriteMPT/WriteMTT) completed
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
		for _, c := range []struct {
			n, u, d string
			v       *uint64
		}{
			{"Lookups", "accesses", "cache accesses started (one per line)", &ts.Lookups},
			{"Hits", "accesses", "accesses that hit", &ts.Hits},
			{"Misses", "accesses", "accesses that missed and read the line from ICM", &ts.Misses},
			{"MergedMisses", "accesses", "misses merged onto an MSHR already reading the line", &ts.MergedMisses},
			{"MSHRStalls", "cycles", "port cycles lost with every MSHR busy", &ts.MSHRStalls},
			{"Evictions", "lines", "valid lines replaced by fills", &ts.Evictions},
			{"Updates", "lines", "cached lines written through by registrations", &ts.Updates},
			{"Invalidations", "lines", "cached lines dropped by registrations", &ts.Invalidations},
			{"ICMReadBytes", "bytes", "bytes read from ICM by DMA", &ts.ICMReadBytes},
			{"ICMWriteBytes", "bytes", "bytes written to ICM by DMA", &ts.ICMWriteBytes},
		} {
			if err := r.Counter(p+c.n, c.u, c.d, c.v); err != nil {
				return err
			}
		}
		if err := r.Histogram(p+"LatencyPS", "ps", "access latency from port to answer", &ts.LatencyPS); err != nil {
			return err
		}
		if err := r.Formula(p+"HitRate", "ratio", "hits / all accesses", func() float64 { return HitRate(ts) }); err != nil {
			return err
		}
	}
	p := prefix + ".Translate."
	if err := r.Counter(p+"Requests", "requests", "translate requests completed", &s.Requests); err != nil {
		return err
	}
	if err := r.Counter(p+"Refused", "requests", "translate requests refused by a check", &s.Refused); err != nil {
		return err
	}
	for i := 1; i < ReasonCount; i++ {
		if err := r.Counter(p+"Refused."+Reason(i).String(), "requests", "requests refused for this reason", &s.ByReason[i]); err != nil {
			return err
		}
	}
	if err := r.Histogram(p+"LatencyPS", "ps", "request latency from Lookup to done", &s.RequestPS); err != nil {
		return err
	}
	if err := r.Counter(p+"DMAStalls", "cycles", "cycles a DMA request waited for room in the DMA queue", &s.DMAStalls); err != nil {
		return err
	}
	return r.Counter(p+"WritesDone", "writes", "registration writes completed", &s.WritesDone)
}
