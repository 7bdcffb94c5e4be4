package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// stage is a pipeline stage with a random service time per item: it pops from
// in, holds the item for its service time and forwards it to out.
type stage struct {
	Tracing
	name     string
	in, out  *Port[job]
	d        *TickDriver
	rng      *rand.Rand
	busy     bool
	cur      job
	doneAt   Tick
	started  Tick
	served   uint64
	svcMaxNS uint64
}

type job struct {
	id      uint64
	created Tick
}

func (s *stage) Wake() { s.d.Wake() }

func (s *stage) Tick(now Tick) bool {
	if s.busy {
		if now < s.doneAt {
			s.d.WakeAt(s.doneAt)
			return false
		}
		if s.out != nil && !s.out.CanSend() {
			return false
		}
		if s.out != nil {
			if err := s.out.Send(s.cur); err != nil {
				panic(err)
			}
		}
		if s.Tracing.Tracing() {
			s.Span(&Span{Track: "Stages/" + s.name, Name: fmt.Sprintf("job %d", s.cur.id), Start: s.started, End: now})
		}
		s.busy = false
		s.served++
	}
	j, ok := s.in.Pop()
	if !ok {
		return false
	}
	s.cur, s.busy, s.started = j, true, now
	s.doneAt = now + Tick(1+s.rng.Uint64N(s.svcMaxNS))*NS
	s.d.WakeAt(s.doneAt)
	return false
}

type sink struct {
	in  *Port[job]
	d   *TickDriver
	lat Histogram
	n   uint64
}

func (k *sink) Wake() { k.d.Wake() }

func (k *sink) Tick(now Tick) bool {
	j, ok := k.in.Pop()
	if !ok {
		return false
	}
	k.lat.Record(uint64(now - j.created))
	k.n++
	return true
}

// runPipeline builds source -> 3 stages -> sink and returns the stats JSON
// and the trace.
func runPipeline(t *testing.T, seed uint64) ([]byte, []byte) {
	env := NewEnv(seed)
	e := env.Engine
	clk, err := NewClockDomain("NIC", 1000)
	require.NoError(t, err)
	var trace bytes.Buffer
	tr := NewChromeTrace(&trace)
	ports := make([]*Port[job], 4)
	for i := range ports {
		ports[i] = MustNewPort[job](fmt.Sprintf("P%d", i), e, 2, 3*NS)
	}
	stages := make([]*stage, 3)
	for i := range stages {
		name := fmt.Sprintf("NIC.Stage[%d]", i)
		s := &stage{name: name, in: ports[i], out: ports[i+1], rng: env.Stream(name), svcMaxNS: uint64(5 + 3*i)}
		s.d = NewTickDriver(name, clk, e, s)
		s.AddTracer(tr)
		stages[i] = s
	}
	k := &sink{in: ports[3]}
	k.d = NewTickDriver("NIC.Sink", clk, e, k)
	for i := range stages {
		var src Waker
		if i > 0 {
			src = stages[i-1]
		}
		ports[i].Connect(src, stages[i])
	}
	ports[3].Connect(stages[2], k)
	// Source: Poisson arrivals pushed straight into port 0 when it has room.
	arr := env.Stream("NIC.Source")
	var id uint64
	var gen HandlerFunc
	gen = func(now Tick, _ uint64) {
		if id >= 2000 {
			return
		}
		if ports[0].CanSend() {
			require.NoError(t, ports[0].Send(job{id: id, created: now}))
			id++
		}
		e.After(Tick(arr.ExpFloat64()*4000)+1, PrioDefault, gen, 0)
	}
	e.After(0, PrioDefault, gen, 0)
	e.Run()
	require.NoError(t, tr.Close())

	reg := NewRegistry()
	require.NoError(t, reg.Histogram("NIC.Sink.Latency", "ps", "source to sink latency", &k.lat))
	require.NoError(t, reg.Counter("NIC.Sink.Jobs", "jobs", "jobs received", &k.n))
	for _, s := range stages {
		require.NoError(t, reg.Counter(s.name+".Served", "jobs", "jobs served", &s.served))
	}
	var st bytes.Buffer
	require.NoError(t, reg.WriteJSON(&st))
	require.Equal(t, uint64(2000), k.n, "every job reaches the sink")
	return st.Bytes(), trace.Bytes()
}

func TestSameSeedGivesByteIdenticalStatsAndTrace(t *testing.T) {
	s1, t1 := runPipeline(t, 5)
	s2, t2 := runPipeline(t, 5)
	require.Equal(t, string(s1), string(s2))
	require.Equal(t, string(t1), string(t2))
	s3, _ := runPipeline(t, 6)
	require.NotEqual(t, string(s1), string(s3), "a different seed must change the run")

	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(t1, &doc), "the trace must be valid JSON")
	require.Greater(t, len(doc.TraceEvents), 6000)
}

func TestChromeTraceFormatAndTruncationIsReported(t *testing.T) {
	var buf bytes.Buffer
	tr := NewChromeTrace(&buf)
	tr.EventsMax = 2
	tr.Span(&Span{Track: "NIC/Parse", Name: "wqe 1", Start: 1500*NS + 1, End: 1502*NS + 999})
	tr.Instant("NIC/Doorbell", "ring", 7)
	tr.Span(&Span{Track: "NIC/Parse", Name: "wqe 2", Start: 0, End: 1})
	err := tr.Close()
	require.ErrorContains(t, err, "1 records dropped")
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	require.Contains(t, buf.String(), `"ts":1.500,"dur":0.002`, "microseconds to the nanosecond, start and end rounded down")
	require.Contains(t, buf.String(), `"name":"thread_name","args":{"name":"Parse"}`)
	require.Contains(t, buf.String(), `"name":"process_name","args":{"name":"NIC"}`)
	require.Contains(t, buf.String(), "TRUNCATED")
}

type countingTracer struct{ n int }

func (c *countingTracer) Span(*Span)                                    { c.n++ }
func (c *countingTracer) Instant(string, string, Tick)                  { c.n++ }
func (c *countingTracer) Counter(string, string, string, Tick, float64) { c.n++ }

func TestTracingWithoutTracerDoesNothingAndAllocatesNothing(t *testing.T) {
	var tr Tracing
	require.False(t, tr.Tracing())
	s := &Span{Track: "a/b", Name: "c", Start: 1, End: 2}
	allocs := testing.AllocsPerRun(100, func() { tr.Span(s) })
	require.Zero(t, allocs)
	c := &countingTracer{}
	tr.AddTracer(c)
	tr.Span(s)
	tr.Instant("a", "b", 1)
	tr.Counter("a", "b", "c", 1, 2)
	require.Equal(t, 3, c.n)
}

func BenchmarkTracingOff(b *testing.B) {
	var tr Tracing
	b.ReportAllocs()
	s := &Span{Track: "NIC/Parse", Name: "wqe"}
	for i := 0; i < b.N; i++ {
		s.Start, s.End = Tick(i), Tick(i+1)
		tr.Span(s)
	}
}
