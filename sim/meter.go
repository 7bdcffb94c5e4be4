package sim

import (
	"fmt"
	"sort"
)

// A Meter measures how busy one resource is: the time integral of the
// units of it in use, against its capacity. Every resource that can bind a
// throughput (a link direction, a pipeline stage, a DMA channel, read tags,
// MSHRs, a posting core, the firmware, the wire) owns one, so that a result
// can say which resource binds it and how close to saturation it runs.
//
// A Meter is fed in one of two ways:
//   - Busy(start, end): one unit is busy over [start, end) (a server that
//     knows its service span when it starts: a transmitter, a stage slot,
//     a core executing a post);
//   - Set(now, inUse): the number of units held changes at now (tags,
//     MSHRs, credits, queue slots); the old level counts up to now.
//
// Busy time is only kept inside the measured window that Meters.Window
// set, split into intervals for time series; before Window is called a
// Meter costs one comparison per call. All arithmetic is integer
// (unit·picoseconds), so results are exact and deterministic.
type Meter struct {
	// The fields a span added touches, together.
	set  *Meters
	busy []uint64 // unit·ps of busy time per interval of the window
	// acc is busy time of interval accK, [accLo, accLo+accW), not yet
	// in busy: most spans fall in the interval of the one before, and
	// adding them here touches no other memory. synced moves it into busy.
	acc         uint64
	accLo, accW Tick
	accK        int
	inUse       uint64 // Set mode: units held since `since`
	since       Tick
	held        bool // fed by Set: counts units held, not service time

	name     string
	unit     string
	capacity uint64
	server   bool // Serves: the units Set counts are servers, not held units

	// Waits: whether a request waits for a unit (waiting, since waitSince)
	// and the window's time with one waiting (waited).
	reportsWaits bool
	across       []string // HeldAcross: the servers its units are held across, by name prefix
	beside       bool     // HeldAcross was called: it may bind beside another server
	waiting      bool
	waitSince    Tick
	waited       Tick

	// sync, when set, brings the level up to date before it is read (a
	// resource whose level changes at reserved events: OnRead).
	sync func()
}

// OnRead registers f to run before the meter is read (InUse, Utilisation,
// Series) or closed (Meters.Cut, Meters.Finish): its owner feeds there the
// changes of level whose events it reserved instead of running them.
func (m *Meter) OnRead(f func()) { m.sync = f }

func (m *Meter) synced() *Meter {
	if m.sync != nil {
		m.sync()
	}
	if m.acc != 0 {
		m.busy[m.accK] += m.acc
		m.acc = 0
	}
	return m
}

// Meters is the set of meters of one simulation and the measured window
// they account. Meters are listed in name order in every report.
type Meters struct {
	list     []*Meter
	names    map[string]bool
	from, to Tick // measured window [from, to); to == 0: no window yet
	interval Tick // width of one time-series interval
	n        int  // intervals in the window
	// The interval last added to, [lo, hi) = interval k: most spans fall
	// in it, and finding it again costs no division.
	lo, hi Tick
	k      int
}

// MeterIntervalsMax bounds the time-series intervals of one window (and
// so a meter's memory: 8 B per interval).
const MeterIntervalsMax = 1 << 16

// NewMeters returns an empty set.
func NewMeters() *Meters { return &Meters{names: map[string]bool{}} }

// New registers a meter of capacity units (capacity >= 1). unit names what
// is counted ("TLP slots", "tags", "cores"); names must be unique.
func (ms *Meters) New(name, unit string, capacity uint64) (*Meter, error) {
	if capacity == 0 {
		return nil, fmt.Errorf("sim: meter %s: capacity 0", name)
	}
	if ms.names[name] {
		return nil, fmt.Errorf("sim: meter %s registered twice", name)
	}
	ms.names[name] = true
	m := &Meter{name: name, unit: unit, capacity: capacity, set: ms}
	if ms.n > 0 {
		m.busy = make([]uint64, ms.n)
	}
	ms.list = append(ms.list, m)
	return m, nil
}

// Window starts accounting busy time in [from, to), split into intervals
// of width interval (0: one interval for the whole window). It may be
// called once, before from; earlier busy time is not counted.
func (ms *Meters) Window(from, to, interval Tick) error {
	if ms.n > 0 {
		return fmt.Errorf("sim: meters: window set twice")
	}
	if to <= from {
		return fmt.Errorf("sim: meters: empty window [%d, %d)", from, to)
	}
	if interval == 0 || interval > to-from {
		interval = to - from
	}
	n := (to - from + interval - 1) / interval
	if n > MeterIntervalsMax {
		return fmt.Errorf("sim: meters: %d intervals exceed the limit of %d", n, MeterIntervalsMax)
	}
	ms.from, ms.to, ms.interval, ms.n = from, to, interval, int(n)
	ms.lo, ms.hi, ms.k = 0, 0, 0
	for _, m := range ms.list {
		m.busy = make([]uint64, ms.n)
		m.acc, m.accK, m.accLo, m.accW = 0, 0, 0, 0
	}
	return nil
}

// Cut ends the window early, at at (from < at <= to), for a run that stops
// before the window's planned end (one that stops after a number of
// operations): the window becomes [from, at) and intervals after at are
// dropped. Call it before Finish. A service span recorded before at that
// runs past it still counts in the last interval.
func (ms *Meters) Cut(at Tick) error {
	if ms.n == 0 || at <= ms.from || at > ms.to {
		return fmt.Errorf("sim: meters: cut at %d outside the window (%d, %d]", at, ms.from, ms.to)
	}
	for _, m := range ms.list {
		m.synced()
	}
	ms.to = at
	ms.n = int((at - ms.from + ms.interval - 1) / ms.interval)
	ms.lo, ms.hi, ms.k = 0, 0, 0
	for _, m := range ms.list {
		m.busy = m.busy[:ms.n]
		m.accK, m.accLo, m.accW = 0, 0, 0 // acc is 0 (synced)
	}
	return nil
}

// Span is the measured window [from, to) and the width of its time-series
// intervals; all zero before Window is called.
func (ms *Meters) Span() (from, to, interval Tick) { return ms.from, ms.to, ms.interval }

// Intervals is the measured window's start, the width of one interval and
// the number of intervals (0 before Window).
func (ms *Meters) Intervals() (from, interval Tick, n int) { return ms.from, ms.interval, ms.n }

// Name is the meter's hierarchical name.
func (m *Meter) Name() string { return m.name }

// Unit is what the meter counts.
func (m *Meter) Unit() string { return m.unit }

// Capacity is the number of units the resource has.
func (m *Meter) Capacity() uint64 { return m.capacity }

// Busy records one unit busy over [start, end).
func (m *Meter) Busy(start, end Tick) { m.add(start, end, 1) }

// BusyN records n units busy over [start, end).
func (m *Meter) BusyN(start, end Tick, n uint64) { m.add(start, end, n) }

// Set changes the units in use to inUse at now; the previous level counts
// over [previous change, now).
func (m *Meter) Set(now Tick, inUse uint64) {
	m.held = true
	// add's fast path, without the call or a test of the level: a level of
	// 0 or an empty span adds 0.
	if m.holds(m.since, now) {
		m.acc += uint64(now-m.since) * m.inUse
	} else if m.inUse > 0 {
		m.addSlow(m.since, now, m.inUse)
	}
	m.inUse, m.since = inUse, now
}

// Held reports whether the meter counts units held (fed by Set: tags,
// MSHRs, buffer slots) rather than service time (Busy, or Set on a meter
// that Serves). A held resource can read full because what comes after it
// is the bottleneck, so a report of what binds prefers service meters.
func (m *Meter) Held() bool { return m.held && !m.server }

// Serves declares that the level Set gives is service time: the units
// are servers busy with their own work (a link direction serialising, a
// DMA channel cutting a request), whose owner tracks the level with Set
// rather than a span per service. The meter is then not Held, whichever
// way it is fed.
func (m *Meter) Serves() { m.server = true }

// InUse is the level last given to Set.
func (m *Meter) InUse() uint64 { return m.synced().inUse }

func (m *Meter) add(start, end Tick, n uint64) {
	if m.holds(start, end) {
		m.acc += uint64(end-start) * n
		return
	}
	m.addSlow(start, end, n)
}

// holds reports whether acc takes the span [start, end): it lies in acc's
// interval (the usual case: most spans fall in the interval of the one
// before), accLo <= start <= end <= accLo+accW. accW is 0 until a span
// inside the window set it, so before Window only empty spans pass. Both
// ends are taken relative to accLo: b wraps above accW when end < accLo,
// and a above b when start < accLo or end < start.
func (m *Meter) holds(start, end Tick) bool {
	b := end - m.accLo
	return b <= m.accW && start-m.accLo <= b
}

// addSlow is add for a span outside the interval acc holds.
func (m *Meter) addSlow(start, end Tick, n uint64) {
	if ms := m.set; start >= ms.lo && end <= ms.hi && end > start {
		if m.acc != 0 {
			m.busy[m.accK] += m.acc
		}
		m.acc, m.accK, m.accLo, m.accW = uint64(end-start)*n, ms.k, ms.lo, ms.hi-ms.lo
		return
	}
	m.addSpan(start, end, n)
}

func (m *Meter) addSpan(start, end Tick, n uint64) {
	if m.busy == nil || end <= start {
		return
	}
	ms := m.set
	start, end = max(start, ms.from), min(end, ms.to)
	for start < end {
		k := (start - ms.from) / ms.interval
		lo := ms.from + k*ms.interval
		stop := min(end, lo+ms.interval)
		m.busy[k] += uint64(stop-start) * n
		ms.lo, ms.hi, ms.k = lo, min(lo+ms.interval, ms.to), int(k)
		start = stop
	}
}

// Finish closes the window at its end: the Set level held since the last
// change counts up to the window's end. Call it once the engine has run
// past the window.
func (ms *Meters) Finish() {
	for _, m := range ms.list {
		m.synced()
		if m.inUse > 0 && ms.to > m.since {
			m.add(m.since, ms.to, m.inUse)
			m.since = ms.to
		}
		m.closeWait(ms.to)
	}
}

// Utilisation is the busy fraction of the meter over the whole window:
// busy unit·time / (capacity x window length), in [0, 1] when the feeding
// component respects its capacity.
func (m *Meter) Utilisation() float64 {
	m.synced()
	ms := m.set
	if ms.n == 0 {
		return 0
	}
	var sum uint64
	for _, b := range m.busy {
		sum += b
	}
	return float64(sum) / (float64(m.capacity) * float64(ms.to-ms.from))
}

// Series is the busy fraction per interval of the window.
func (m *Meter) Series() []float64 {
	m.synced()
	ms := m.set
	out := make([]float64, ms.n)
	for k, b := range m.busy {
		w := ms.interval
		if end := ms.from + Tick(k+1)*ms.interval; end > ms.to {
			w = ms.to - (ms.from + Tick(k)*ms.interval)
		}
		out[k] = float64(b) / (float64(m.capacity) * float64(w))
	}
	return out
}

// List returns the meters sorted by name.
func (ms *Meters) List() []*Meter {
	out := append([]*Meter(nil), ms.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Busiest returns the meter with the highest utilisation among those for
// which keep returns true (nil keeps all); ties go to the first name in
// order. It returns nil when no meter is kept.
func (ms *Meters) Busiest(keep func(*Meter) bool) *Meter {
	var best *Meter
	bu := -1.0
	for _, m := range ms.List() {
		if keep != nil && !keep(m) {
			continue
		}
		if u := m.Utilisation(); u > bu {
			best, bu = m, u
		}
	}
	return best
}
