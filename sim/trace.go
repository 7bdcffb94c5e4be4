package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Tracer receives timeline records. Components keep a Tracing value and call
// its methods; with no tracer attached each call is one length check.
type Tracer interface {
	// Span records that track was busy with name from start to end.
	Span(track, name string, start, end Tick)
	// Instant records a point event on track.
	Instant(track, name string, at Tick)
}

// Tracing is embedded in components that emit timeline records.
type Tracing struct {
	hooks []Tracer
}

// AddTracer attaches t.
func (tr *Tracing) AddTracer(t Tracer) { tr.hooks = append(tr.hooks, t) }

// Tracing reports whether any tracer is attached, so callers can skip
// building names.
func (tr *Tracing) Tracing() bool { return len(tr.hooks) != 0 }

// Span forwards a span to every tracer.
func (tr *Tracing) Span(track, name string, start, end Tick) {
	if len(tr.hooks) == 0 {
		return
	}
	for _, h := range tr.hooks {
		h.Span(track, name, start, end)
	}
}

// Instant forwards a point event to every tracer.
func (tr *Tracing) Instant(track, name string, at Tick) {
	if len(tr.hooks) == 0 {
		return
	}
	for _, h := range tr.hooks {
		h.Instant(track, name, at)
	}
}

// ChromeTrace writes the Chrome trace-event JSON format (the "JSON Array
// Format" with a traceEvents object), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. Timestamps are microseconds with picosecond
// precision. Each track becomes a thread named after it, numbered in order of
// first appearance, so output is deterministic for a deterministic run.
//
// A trace holds at most EventsMax records; past that it records nothing more
// and says so in the file and in Close's error, never silently.
type ChromeTrace struct {
	w         *bufio.Writer
	tracks    map[string]int
	order     []string
	n         int
	EventsMax int
	dropped   int
	err       error
	buf       []byte
}

// DefaultTraceEventsMax bounds a trace file at roughly 1-2 GB.
const DefaultTraceEventsMax = 10_000_000

// NewChromeTrace starts a trace on w. Call Close to finish the file.
func NewChromeTrace(w io.Writer) *ChromeTrace {
	t := &ChromeTrace{w: bufio.NewWriterSize(w, 1<<16), tracks: map[string]int{}, EventsMax: DefaultTraceEventsMax}
	_, t.err = t.w.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	return t
}

func (t *ChromeTrace) track(name string) int {
	id, ok := t.tracks[name]
	if !ok {
		id = len(t.order) + 1
		t.tracks[name] = id
		t.order = append(t.order, name)
	}
	return id
}

// appendMicros formats ps as microseconds with six decimals, exactly.
func appendMicros(b []byte, ps Tick) []byte {
	b = strconv.AppendUint(b, uint64(ps/US), 10)
	frac := uint64(ps % US)
	b = append(b, '.')
	s := strconv.FormatUint(frac, 10)
	for i := len(s); i < 6; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func (t *ChromeTrace) begin() bool {
	if t.err != nil {
		return false
	}
	if t.n >= t.EventsMax {
		t.dropped++
		return false
	}
	if t.n > 0 {
		t.buf = append(t.buf[:0], ",\n"...)
	} else {
		t.buf = t.buf[:0]
	}
	t.n++
	return true
}

// Span implements Tracer.
func (t *ChromeTrace) Span(track, name string, start, end Tick) {
	if !t.begin() {
		return
	}
	if end < start {
		end = start
	}
	b := append(t.buf, `{"ph":"X","pid":1,"tid":`...)
	b = strconv.AppendInt(b, int64(t.track(track)), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, end-start)
	b = append(b, '}')
	t.buf = b
	_, t.err = t.w.Write(b)
}

// Instant implements Tracer.
func (t *ChromeTrace) Instant(track, name string, at Tick) {
	if !t.begin() {
		return
	}
	b := append(t.buf, `{"ph":"i","s":"t","pid":1,"tid":`...)
	b = strconv.AppendInt(b, int64(t.track(track)), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, at)
	b = append(b, '}')
	t.buf = b
	_, t.err = t.w.Write(b)
}

// Events is the number of records written.
func (t *ChromeTrace) Events() int { return t.n }

// Close writes the track names and the closing brackets and flushes. It
// returns an error if writing failed or records were dropped at EventsMax.
func (t *ChromeTrace) Close() error {
	if t.err != nil {
		return t.err
	}
	sep := ",\n"
	if t.n == 0 {
		sep = ""
	}
	for i, name := range t.order {
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":1,"tid":%d,"name":"thread_name","args":{"name":%s}}`, sep, i+1, strconv.Quote(name))
		sep = ",\n"
	}
	if t.dropped > 0 {
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":1,"name":"process_labels","args":{"labels":"TRUNCATED: %d records dropped at the limit of %d"}}`, sep, t.dropped, t.EventsMax)
	}
	fmt.Fprintf(t.w, `%s{"ph":"M","pid":1,"name":"process_name","args":{"name":"nicsim"}}`+"\n]}\n", sep)
	if err := t.w.Flush(); err != nil {
		return err
	}
	if t.dropped > 0 {
		return fmt.Errorf("sim: trace truncated: %d records dropped past the limit of %d", t.dropped, t.EventsMax)
	}
	return nil
}
