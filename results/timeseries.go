package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// timeseries.csv is tidy like results.csv: one row per point, interval and
// generator (row = generator) or resource (row = resource), with the
// point's index and sweep axes first, then
//
//	name, start_us, end_us, measured,
//	completed, failed, throughput_mops, goodput_gbps,
//	latency_ns_count, latency_ns_p50, latency_ns_p99, latency_ns_max,
//	utilisation
//
// Times are microseconds since the end of setup (warm-up starts at 0);
// measured says whether the interval lies in the measured window. Cells
// that do not apply to a row type, and latencies of an interval without
// samples, are empty.
var timeseriesColumns = []string{"row", "name", "start_us", "end_us", "measured", "completed", "failed", "throughput_mops",
	"goodput_gbps", "latency_ns_count", "latency_ns_p50", "latency_ns_p99", "latency_ns_max", "utilisation"}

// Row type of a resource in timeseries.csv.
const RowResource = "resource"

func fmtF(v float64) string { return strconv.FormatFloat(roundFloat(v, -1), 'g', -1, 64) }

// us formats picoseconds as microseconds.
func us(ps uint64) string { return strconv.FormatFloat(float64(ps)/1e6, 'g', -1, 64) }

// WriteTimeseriesCSV writes timeseries.csv of r (points without a series
// have no rows).
func WriteTimeseriesCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	t := newCSVTable(r.Sweep)
	nk := 1 + len(t.axes)
	if err := cw.Write(append(append([]string(nil), t.header[:nk]...), timeseriesColumns...)); err != nil {
		return err
	}
	for i := range r.Points {
		p := &r.Points[i]
		if p.Series == nil {
			continue
		}
		keys := t.keys(p)[:nk]
		for _, row := range seriesRows(p.Series) {
			if err := cw.Write(append(append([]string(nil), keys...), row...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// seriesRows are the rows of one series after the key columns: every
// generator's intervals, then every resource's.
func seriesRows(s *Series) [][]string {
	var out [][]string
	for _, g := range s.Generators {
		for k := range g.Completed {
			start := s.StartPS + uint64(k)*s.IntervalPS
			end := start + s.IntervalPS
			if s.EndPS > start && s.EndPS < end {
				end = s.EndPS
			}
			row := make([]string, len(timeseriesColumns))
			row[0], row[1], row[2], row[3] = RowGenerator, g.Name, us(start), us(end)
			row[4] = strconv.FormatBool(start >= s.WarmupPS)
			row[5], row[6] = strconv.FormatUint(g.Completed[k], 10), strconv.FormatUint(g.Failed[k], 10)
			sec := float64(end-start) / 1e12
			row[7] = fmtF(float64(g.Completed[k]) / sec / 1e6)
			row[8] = fmtF(float64(g.Bytes[k]) * 8 / sec / 1e9)
			row[9] = strconv.FormatUint(g.LatencyCount[k], 10)
			if g.LatencyCount[k] > 0 {
				row[10], row[11], row[12] = fmtF(g.P50NS[k]), fmtF(g.P99NS[k]), fmtF(g.MaxNS[k])
			}
			out = append(out, row)
		}
	}
	for _, rs := range s.Resources {
		for k, u := range rs.Utilisation {
			start := rs.StartPS + uint64(k)*rs.IntervalPS
			row := make([]string, len(timeseriesColumns))
			row[0], row[1], row[2], row[3] = RowResource, rs.Name, us(start), us(start+rs.IntervalPS)
			row[4], row[13] = strconv.FormatBool(start >= s.WarmupPS), fmtF(u)
			out = append(out, row)
		}
	}
	return out
}
