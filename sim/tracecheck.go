package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// TraceSummary is what CheckChromeTrace found in a trace file.
type TraceSummary struct {
	Groups   []string // process names, in pid order
	Tracks   []string // "group/thread" of every named thread, in tid order
	Counters []string // "group/name unit" of every counter track, sorted
	Slices   int      // complete events
	// ArgKeys are the argument keys seen on the slices of each group.
	ArgKeys map[string]map[string]bool
}

type traceEvent struct {
	Ph   string          `json:"ph"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Name string          `json:"name"`
	Ts   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	Args json.RawMessage `json:"args"`
}

type traceSlice struct {
	start, end int64 // ns
	name       string
}

// CheckChromeTrace reads a trace-event JSON file and checks what Perfetto
// needs to keep every record: the slices of each thread either nest or
// follow one another (sorted by start, ties in file order, as Perfetto's
// importer orders them), never partially overlap; every pid and tid used
// is named; every counter value is a number. Times are read as decimal
// microseconds to the nanosecond, exactly.
func CheckChromeTrace(r io.Reader) (*TraceSummary, error) {
	var f struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("trace: not trace-event JSON: %v", err)
	}
	c := &traceCheck{procs: map[int]string{}, threads: map[[2]int]string{}, slices: map[[2]int][]traceSlice{},
		counters: map[string]bool{}, sum: &TraceSummary{ArgKeys: map[string]map[string]bool{}}}
	for i := range f.TraceEvents {
		if err := c.event(&f.TraceEvents[i]); err != nil {
			return nil, fmt.Errorf("trace: event %d (%s %q): %v", i, f.TraceEvents[i].Ph, f.TraceEvents[i].Name, err)
		}
	}
	return c.finish()
}

type traceCheck struct {
	procs    map[int]string
	threads  map[[2]int]string
	slices   map[[2]int][]traceSlice
	counters map[string]bool
	used     [][2]int
	sum      *TraceSummary
}

func (c *traceCheck) event(e *traceEvent) error {
	switch e.Ph {
	case "M":
		return c.meta(e)
	case "X":
		ts, err1 := microsToNS(string(e.Ts))
		dur, err2 := microsToNS(string(e.Dur))
		if err1 != nil || err2 != nil || dur < 0 {
			return fmt.Errorf("bad ts %q or dur %q", e.Ts, e.Dur)
		}
		k := [2]int{e.Pid, e.Tid}
		c.slices[k] = append(c.slices[k], traceSlice{ts, ts + dur, e.Name})
		c.used = append(c.used, k)
		c.sum.Slices++
		return c.argKeys(e)
	case "i":
		c.used = append(c.used, [2]int{e.Pid, e.Tid})
	case "C":
		var args map[string]any
		if err := json.Unmarshal(e.Args, &args); err != nil || len(args) == 0 {
			return fmt.Errorf("counter without args")
		}
		for k, v := range args {
			if _, ok := v.(float64); !ok {
				return fmt.Errorf("counter %s: value %v is not a number", k, v)
			}
			c.counters[fmt.Sprintf("%d\x00%s %s", e.Pid, e.Name, k)] = true
		}
		c.used = append(c.used, [2]int{e.Pid, -1})
	default:
		return fmt.Errorf("unexpected phase %q", e.Ph)
	}
	return nil
}

func (c *traceCheck) meta(e *traceEvent) error {
	var a struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(e.Args, &a)
	switch e.Name {
	case "process_name":
		c.procs[e.Pid] = a.Name
	case "thread_name":
		c.threads[[2]int{e.Pid, e.Tid}] = a.Name
	}
	return nil
}

func (c *traceCheck) argKeys(e *traceEvent) error {
	if len(e.Args) == 0 {
		return nil
	}
	var args map[string]any
	if err := json.Unmarshal(e.Args, &args); err != nil {
		return fmt.Errorf("args: %v", err)
	}
	g := strconv.Itoa(e.Pid)
	if c.sum.ArgKeys[g] == nil {
		c.sum.ArgKeys[g] = map[string]bool{}
	}
	for k := range args {
		c.sum.ArgKeys[g][k] = true
	}
	return nil
}

func (c *traceCheck) finish() (*TraceSummary, error) {
	for _, k := range c.used {
		if c.procs[k[0]] == "" {
			return nil, fmt.Errorf("trace: pid %d has no process_name", k[0])
		}
		if k[1] >= 0 && c.threads[k] == "" {
			return nil, fmt.Errorf("trace: pid %d tid %d has no thread_name", k[0], k[1])
		}
	}
	for k, ss := range c.slices {
		if err := checkNesting(ss); err != nil {
			return nil, fmt.Errorf("trace: %s/%s: %v", c.procs[k[0]], c.threads[k], err)
		}
	}
	c.summarise()
	return c.sum, nil
}

// checkNesting checks that slices, sorted by start with ties in file
// order, each end within the slice open around them.
func checkNesting(ss []traceSlice) error {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
	var stack []traceSlice
	for _, s := range ss {
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && s.end > stack[n-1].end {
			p := stack[n-1]
			return fmt.Errorf("slice %q [%d, %d] ns partially overlaps %q [%d, %d] ns", s.name, s.start, s.end, p.name, p.start, p.end)
		}
		stack = append(stack, s)
	}
	return nil
}

func (c *traceCheck) summarise() {
	pids := make([]int, 0, len(c.procs))
	for p := range c.procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	for _, p := range pids {
		c.sum.Groups = append(c.sum.Groups, c.procs[p])
	}
	keys := make([][2]int, 0, len(c.threads))
	for k := range c.threads {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][1] < keys[j][1] })
	for _, k := range keys {
		c.sum.Tracks = append(c.sum.Tracks, c.procs[k[0]]+"/"+c.threads[k])
	}
	for k := range c.counters {
		pid, name, _ := strings.Cut(k, "\x00")
		n, _ := strconv.Atoi(pid)
		c.sum.Counters = append(c.sum.Counters, c.procs[n]+"/"+name)
	}
	sort.Strings(c.sum.Counters)
	named := map[string]map[string]bool{}
	for pid, keys := range c.sum.ArgKeys {
		n, _ := strconv.Atoi(pid)
		named[c.procs[n]] = keys
	}
	c.sum.ArgKeys = named
}

// microsToNS reads a decimal number of microseconds as whole nanoseconds,
// exactly (digits past the nanosecond are dropped, as Perfetto does).
func microsToNS(s string) (int64, error) {
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		return int64(f * 1000), err
	}
	ip, fp, _ := strings.Cut(s, ".")
	fp = (fp + "000")[:3]
	i, err := strconv.ParseInt(ip, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt(fp, 10, 64)
	if err != nil {
		return 0, err
	}
	return i*1000 + f, nil
}
