package traffic

import (
	"fmt"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// snapshot is the link's and the translation unit's counters at one time;
// a point's window figures are the differences of two.
type snapshot struct {
	at                 sim.Tick
	up, down           pcie.DirStats
	mptHits, mptAll    uint64
	mttHits, mttAll    uint64
	mptLooks, mttLooks uint64
	// Misses and evictions: a miss that evicts nothing fills an empty line.
	mptMiss, mptEvict uint64
	mttMiss, mttEvict uint64
}

func takeSnapshot(m *Model, now sim.Tick) snapshot {
	st := m.Link.Stats()
	t := &m.TPT.Stats
	all := func(s *mtt.TableStats) uint64 { return s.Hits + s.Misses + s.MergedMisses }
	return snapshot{at: now, up: st.Up, down: st.Down, mptHits: t.MPT.Hits, mptAll: all(&t.MPT),
		mttHits: t.MTT.Hits, mttAll: all(&t.MTT), mptLooks: t.MPT.Lookups, mttLooks: t.MTT.Lookups,
		mptMiss: t.MPT.Misses, mptEvict: t.MPT.Evictions, mttMiss: t.MTT.Misses, mttEvict: t.MTT.Evictions}
}

// ColdFillShareMax is the share of a window's cache lookups that may fill
// empty lines before a result is flagged as measured on a warming cache.
const ColdFillShareMax = 0.01

// coldFillWarnings flags a measured window in which a TPT cache was still
// filling: misses that evicted nothing are first touches of a cache not yet
// full, so the window mixes warm-up into steady state (hit rates read low,
// latencies high). The cure is a longer warm-up.
func coldFillWarnings(a, b snapshot, warmupUS float64) []string {
	var out []string
	for _, c := range []struct {
		name                 string
		miss, evict, lookups uint64
	}{
		{"MPT", (b.mptMiss - a.mptMiss), (b.mptEvict - a.mptEvict), b.mptLooks - a.mptLooks},
		{"MTT", (b.mttMiss - a.mttMiss), (b.mttEvict - a.mttEvict), b.mttLooks - a.mttLooks},
	} {
		if c.lookups == 0 || c.miss <= c.evict {
			continue
		}
		cold := c.miss - c.evict
		if share := float64(cold) / float64(c.lookups); cold >= 10 && share > ColdFillShareMax {
			out = append(out, fmt.Sprintf("%s cache still filling in the measured window: %d of %d lookups (%.1f %%) missed into empty lines; "+
				"raise run.warmup_us (now %g) so the window measures steady state", c.name, cold, c.lookups, 100*share, warmupUS))
		}
	}
	return out
}

// windowFigures computes link utilisation and cache hit rates between two
// snapshots, over the window to tEnd. A transfer in progress at either end
// counts wholly in the snapshot that saw it start, so a short window can
// read slightly high; utilisation is capped at 1.
func windowFigures(a, b snapshot, tEnd sim.Tick) (results.LinkResult, results.TPTResult) {
	var l results.LinkResult
	if el := float64(tEnd - min(tEnd, a.at)); el > 0 {
		l.UpUtilization = min(1, float64(b.up.BusyPS-a.up.BusyPS)/el)
		l.DownUtilization = min(1, float64(b.down.BusyPS-a.down.BusyPS)/el)
		l.UpPayloadGbps = float64(b.up.PayloadBytes-a.up.PayloadBytes) * 8 / el * 1e3
		l.DownPayloadGbps = float64(b.down.PayloadBytes-a.down.PayloadBytes) * 8 / el * 1e3
	}
	l.UpTLPs = b.up.TLPCount() - a.up.TLPCount()
	l.DownTLPs = b.down.TLPCount() - a.down.TLPCount()
	rate := func(h, n uint64) float64 {
		if n == 0 {
			return 0
		}
		return float64(h) / float64(n)
	}
	t := results.TPTResult{MPTLookups: b.mptLooks - a.mptLooks, MTTLookups: b.mttLooks - a.mttLooks,
		MPTHitRate: rate(b.mptHits-a.mptHits, b.mptAll-a.mptAll),
		MTTHitRate: rate(b.mttHits-a.mttHits, b.mttAll-a.mttAll)}
	return l, t
}
