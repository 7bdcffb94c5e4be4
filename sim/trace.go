package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Arg is one argument of a span, shown in Perfetto's details panel. Value
// is a string, a bool, an integer type or a float64.
type Arg struct {
	Key   string
	Value any
}

// Phase is a sub-span of a Span, drawn nested under it.
type Phase struct {
	Name       string
	Start, End Tick
}

// Span is one timeline record: Track was busy with Name from Start to End.
// Track is "group/track": spans of one group are shown together (a
// process in Perfetto), each track as a row. Phases are consecutive parts
// of the span, drawn as its children.
type Span struct {
	Track      string
	Name       string
	Start, End Tick
	Args       []Arg
	Phases     []Phase
}

// Tracer receives timeline records. Components keep a Tracing value and call
// its methods; with no tracer attached each call is one length check.
type Tracer interface {
	// Span records one span.
	Span(s *Span)
	// Instant records a point event on track ("group/track").
	Instant(track, name string, at Tick)
	// Counter records that the counter name of group, in unit, has value
	// from at until its next record.
	Counter(group, name, unit string, at Tick, value float64)
}

// Tracing is embedded in components that emit timeline records.
type Tracing struct {
	hooks []Tracer
}

// AddTracer attaches t.
func (tr *Tracing) AddTracer(t Tracer) { tr.hooks = append(tr.hooks, t) }

// Tracing reports whether any tracer is attached, so callers can skip
// building records.
func (tr *Tracing) Tracing() bool { return len(tr.hooks) != 0 }

// Span forwards a span to every tracer.
func (tr *Tracing) Span(s *Span) {
	for _, h := range tr.hooks {
		h.Span(s)
	}
}

// Instant forwards a point event to every tracer.
func (tr *Tracing) Instant(track, name string, at Tick) {
	for _, h := range tr.hooks {
		h.Instant(track, name, at)
	}
}

// Counter forwards a counter value to every tracer.
func (tr *Tracing) Counter(group, name, unit string, at Tick, value float64) {
	for _, h := range tr.hooks {
		h.Counter(group, name, unit, at, value)
	}
}

// ChromeTrace writes the Chrome trace-event JSON format (the "JSON Array
// Format" with a traceEvents object), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open:
//
//   - a group ("NIC work requests") is a process, a track ("QP[3]") a
//     thread of it, both named by metadata records and numbered in order of
//     first appearance, so output is deterministic for a deterministic run;
//   - a span is a complete ("X") event with its arguments, its phases
//     complete events after it on the same thread. Spans of one track that
//     overlap go to lanes: threads "QP[3]", "QP[3] #1", ..., each span on
//     the first lane free at its start, so no two slices of a thread ever
//     partially overlap (the trace-event format forbids it, and Perfetto
//     drops such slices); phases are clamped into their span and after one
//     another, so they nest;
//   - counters are counter ("C") events of their group, one track per name
//     and unit.
//
// Times are written in microseconds with nanosecond precision (3
// decimals), start and end each rounded down to the nanosecond, so a span
// ends exactly where its duration says and rounding keeps nesting.
//
// A trace holds at most EventsMax records; past that it records nothing more
// and says so in the file and in Close's error, never silently.
type ChromeTrace struct {
	w         *bufio.Writer
	groups    map[string]int // group -> pid
	groupList []string
	tracks    map[string]*traceTrack
	threads   []traceThread // by tid-1
	n         int
	EventsMax int
	dropped   int
	err       error
	buf       []byte
}

type traceTrack struct {
	pid   int
	name  string
	lanes []traceLane
}

type traceLane struct {
	tid int
	end Tick // end of the lane's last span
}

type traceThread struct {
	pid  int
	name string
}

// DefaultTraceEventsMax bounds a trace file at roughly 1-2 GB.
const DefaultTraceEventsMax = 10_000_000

// NewChromeTrace starts a trace on w. Call Close to finish the file.
func NewChromeTrace(w io.Writer) *ChromeTrace {
	t := &ChromeTrace{w: bufio.NewWriterSize(w, 1<<16), groups: map[string]int{}, tracks: map[string]*traceTrack{},
		EventsMax: DefaultTraceEventsMax}
	_, t.err = t.w.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	return t
}

// splitTrack splits "group/track"; a track without a group is its own.
func splitTrack(track string) (string, string) {
	if g, name, ok := strings.Cut(track, "/"); ok {
		return g, name
	}
	return track, track
}

func (t *ChromeTrace) group(name string) int {
	pid, ok := t.groups[name]
	if !ok {
		pid = len(t.groupList) + 1
		t.groups[name] = pid
		t.groupList = append(t.groupList, name)
	}
	return pid
}

func (t *ChromeTrace) track(track string) *traceTrack {
	tk, ok := t.tracks[track]
	if !ok {
		g, name := splitTrack(track)
		tk = &traceTrack{pid: t.group(g), name: name}
		t.tracks[track] = tk
	}
	return tk
}

// lane is the thread of the first lane of tk free at start (a new lane if
// none is), which then is busy until end.
func (t *ChromeTrace) lane(tk *traceTrack, start, end Tick) int {
	for i := range tk.lanes {
		if tk.lanes[i].end <= start {
			tk.lanes[i].end = max(end, start)
			return tk.lanes[i].tid
		}
	}
	name := tk.name
	if k := len(tk.lanes); k > 0 {
		name = fmt.Sprintf("%s #%d", tk.name, k)
	}
	t.threads = append(t.threads, traceThread{pid: tk.pid, name: name})
	tid := len(t.threads)
	tk.lanes = append(tk.lanes, traceLane{tid: tid, end: max(end, start)})
	return tid
}

// appendMicros formats ps as microseconds, rounded down to the nanosecond.
func appendMicros(b []byte, ps Tick) []byte {
	ns := uint64(ps / NS)
	b = strconv.AppendUint(b, ns/1000, 10)
	frac := ns % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
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

func (t *ChromeTrace) flush() { _, t.err = t.w.Write(t.buf) }

// complete writes one X event on pid/tid.
func (t *ChromeTrace) complete(pid, tid int, name string, start, end Tick, args []Arg) {
	if !t.begin() {
		return
	}
	b := append(t.buf, `{"ph":"X","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, end/NS*NS-start/NS*NS)
	if len(args) > 0 {
		b = appendArgs(append(b, `,"args":`...), args)
	}
	t.buf = append(b, '}')
	t.flush()
}

func appendArgs(b []byte, args []Arg) []byte {
	b = append(b, '{')
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, a.Key)
		b = append(b, ':')
		b = appendValue(b, a.Value)
	}
	return append(b, '}')
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return strconv.AppendQuote(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return strconv.AppendQuote(b, fmt.Sprint(v))
}

// Span implements Tracer.
func (t *ChromeTrace) Span(s *Span) {
	end := max(s.End, s.Start)
	tk := t.track(s.Track)
	tid := t.lane(tk, s.Start, end)
	t.complete(tk.pid, tid, s.Name, s.Start, end, s.Args)
	at := s.Start
	for _, p := range s.Phases {
		ps := min(max(p.Start, at), end)
		pe := min(max(p.End, ps), end)
		t.complete(tk.pid, tid, p.Name, ps, pe, nil)
		at = pe
	}
}

// Instant implements Tracer: a point event on the track's first lane.
func (t *ChromeTrace) Instant(track, name string, at Tick) {
	tk := t.track(track)
	if len(tk.lanes) == 0 {
		t.lane(tk, 0, 0)
	}
	if !t.begin() {
		return
	}
	b := append(t.buf, `{"ph":"i","s":"t","pid":`...)
	b = strconv.AppendInt(b, int64(tk.pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tk.lanes[0].tid), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	t.buf = append(appendMicros(b, at), '}')
	t.flush()
}

// Counter implements Tracer.
func (t *ChromeTrace) Counter(group, name, unit string, at Tick, value float64) {
	pid := t.group(group)
	if !t.begin() {
		return
	}
	b := append(t.buf, `{"ph":"C","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, at)
	b = append(b, `,"args":{`...)
	b = strconv.AppendQuote(b, unit)
	b = append(b, ':')
	b = strconv.AppendFloat(b, value, 'g', -1, 64)
	t.buf = append(b, "}}"...)
	t.flush()
}

// Events is the number of records written.
func (t *ChromeTrace) Events() int { return t.n }

// Close writes the process and thread names and the closing brackets and
// flushes. It returns an error if writing failed or records were dropped
// at EventsMax.
func (t *ChromeTrace) Close() error {
	if t.err != nil {
		return t.err
	}
	sep := ",\n"
	if t.n == 0 {
		sep = ""
	}
	for i, g := range t.groupList {
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":%d,"name":"process_name","args":{"name":%s}}`, sep, i+1, strconv.Quote(g))
		sep = ",\n"
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":%d,"name":"process_sort_index","args":{"sort_index":%d}}`, sep, i+1, i+1)
	}
	for i, th := range t.threads {
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":%d,"tid":%d,"name":"thread_name","args":{"name":%s}}`, sep, th.pid, i+1, strconv.Quote(th.name))
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":%d,"tid":%d,"name":"thread_sort_index","args":{"sort_index":%d}}`, sep, th.pid, i+1, i+1)
	}
	if t.dropped > 0 {
		fmt.Fprintf(t.w, `%s{"ph":"M","pid":1,"name":"process_labels","args":{"labels":"TRUNCATED: %d records dropped at the limit of %d"}}`, sep, t.dropped, t.EventsMax)
	}
	if _, err := t.w.WriteString("\n]}\n"); err != nil {
		return err
	}
	if err := t.w.Flush(); err != nil {
		return err
	}
	if t.dropped > 0 {
		return fmt.Errorf("sim: trace truncated: %d records dropped past the limit of %d", t.dropped, t.EventsMax)
	}
	return nil
}
