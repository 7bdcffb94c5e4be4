package results

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
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
// measured says whether the interval lies in the measured window;
// throughput_mops counts the successful completions (completed - failed).
// Cells
// that do not apply to a row type, and latencies of an interval without
// samples, are empty.
var timeseriesColumns = []string{"row", "name", "start_us", "end_us", "measured", "completed", "failed", "throughput_mops",
	"goodput_gbps", "latency_ns_count", "latency_ns_p50", "latency_ns_p99", "latency_ns_max", "utilisation"}

// Row type of a resource in timeseries.csv.
const RowResource = "resource"

// WriteTimeseriesCSV writes timeseries.csv of r (points without a series
// have no rows).
func WriteTimeseriesCSV(w io.Writer, r *Result) error {
	tw := newTimeseriesWriter(w, newCSVTable(r.Sweep))
	for i := range r.Points {
		tw.point(&r.Points[i])
	}
	return tw.flush()
}

// timeseriesWriter writes timeseries.csv a point at a time. A row has
// few cells that are text (the keys, the row type and the name: the same
// for every interval of a series) and many that are numbers, which never
// need quoting: encoding/csv writes the text cells once per series, with
// the quoting they need, and each interval's numbers are appended to
// them. A sweep of short runs has tens of thousands of rows, and writing
// them cell by cell took longer than the runs.
type timeseriesWriter struct {
	w    io.Writer
	t    *csvTable
	nk   int          // key cells: the point's index and its axes
	buf  []byte       // rows not yet written to w
	text bytes.Buffer // the text cells of the series being written
	cw   *csv.Writer  // into text
	err  error
}

// timeseriesFlushBytes is how much a timeseriesWriter holds before it
// writes to its writer.
const timeseriesFlushBytes = 1 << 16

// newTimeseriesWriter writes the header of timeseries.csv to w, for a
// result of table t.
func newTimeseriesWriter(w io.Writer, t *csvTable) *timeseriesWriter {
	tw := &timeseriesWriter{w: w, t: t, nk: 1 + len(t.axes)}
	tw.cw = csv.NewWriter(&tw.text)
	tw.end(append(tw.buf, tw.cells(append(append([]string(nil), t.header[:tw.nk]...), timeseriesColumns...))...))
	return tw
}

// cells is record as encoding/csv writes it, without its line end; it is
// valid until the next call.
func (tw *timeseriesWriter) cells(record []string) []byte {
	tw.text.Reset()
	tw.cw.Write(record) // into a bytes.Buffer: no error
	tw.cw.Flush()
	return bytes.TrimSuffix(tw.text.Bytes(), []byte("\n"))
}

// point writes the rows of p's series: every generator's intervals, then
// every resource's.
func (tw *timeseriesWriter) point(p *PointResult) {
	s := p.Series
	if s == nil || tw.err != nil {
		return
	}
	keys := tw.t.keys(p)[:tw.nk]
	text := func(row, name string) []byte { return tw.cells(append(keys[:tw.nk:tw.nk], row, name)) }
	for g := range s.Generators {
		tw.generator(s, &s.Generators[g], text(RowGenerator, s.Generators[g].Name))
	}
	for i := range s.Resources {
		tw.resource(s, &s.Resources[i], text(RowResource, s.Resources[i].Name))
	}
}

func (tw *timeseriesWriter) generator(s *Series, g *GenSeries, text []byte) {
	for k := range g.Completed {
		start := s.StartPS + uint64(k)*s.IntervalPS
		end := start + s.IntervalPS
		if s.EndPS > start && s.EndPS < end {
			end = s.EndPS
		}
		b := tw.interval(text, start, end, start >= s.WarmupPS)
		b = strconv.AppendUint(append(b, ','), g.Completed[k], 10)
		b = strconv.AppendUint(append(b, ','), g.Failed[k], 10)
		sec := float64(end-start) / 1e12
		b = appendF(append(b, ','), float64(g.Completed[k]-g.Failed[k])/sec/1e6) // successes only
		b = appendF(append(b, ','), float64(g.Bytes[k])*8/sec/1e9)
		b = strconv.AppendUint(append(b, ','), g.LatencyCount[k], 10)
		if g.LatencyCount[k] > 0 {
			b = appendF(append(b, ','), g.P50NS[k])
			b = appendF(append(b, ','), g.P99NS[k])
			b = appendF(append(b, ','), g.MaxNS[k])
			tw.end(append(b, ','))
		} else {
			tw.end(append(b, ",,,,"...))
		}
	}
}

func (tw *timeseriesWriter) resource(s *Series, rs *ResourceSeries, text []byte) {
	for k, u := range rs.Utilisation {
		start := rs.StartPS + uint64(k)*rs.IntervalPS
		b := tw.interval(text, start, start+rs.IntervalPS, start >= s.WarmupPS)
		tw.end(appendF(append(b, ",,,,,,,,,"...), u)) // the generator cells empty
	}
}

// interval starts a row: the series' text cells, the interval's times and
// whether it is measured.
func (tw *timeseriesWriter) interval(text []byte, start, end uint64, measured bool) []byte {
	b := append(tw.buf, text...)
	b = appendUS(append(b, ','), start)
	b = appendUS(append(b, ','), end)
	return strconv.AppendBool(append(b, ','), measured)
}

// end ends the row in b and writes the rows held once they are many.
func (tw *timeseriesWriter) end(b []byte) {
	tw.buf = append(b, '\n')
	if len(tw.buf) >= timeseriesFlushBytes {
		tw.write()
	}
}

func (tw *timeseriesWriter) write() {
	if tw.err == nil {
		_, tw.err = tw.w.Write(tw.buf)
	}
	tw.buf = tw.buf[:0]
}

// flush writes the rows held and reports the first error writing any.
func (tw *timeseriesWriter) flush() error {
	tw.write()
	return tw.err
}

// appendUS appends picoseconds as microseconds.
func appendUS(b []byte, ps uint64) []byte {
	return strconv.AppendFloat(b, float64(ps)/1e6, 'g', -1, 64)
}

// appendF appends v as a derived figure: rounded to SignificantDigits,
// in the shortest form that reads back as the rounded value. For a normal
// number that is the rounded digits themselves, with the same choice of
// exponent form ('g' decides it from the rounded digits, and the
// shortest form of at most 6 digits by the same rule); a subnormal number
// may read back as another, and goes the long way.
func appendF(b []byte, v float64) []byte {
	if a := math.Abs(v); a >= 0x1p-1000 && a <= math.MaxFloat64 {
		return strconv.AppendFloat(b, v, 'g', SignificantDigits, 64)
	}
	return strconv.AppendFloat(b, roundFloat(v, -1), 'g', -1, 64)
}
