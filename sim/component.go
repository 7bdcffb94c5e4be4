package sim

// Ticker is a component's per-cycle work. Tick returns whether the component
// made progress; a component that made none is not ticked again until
// something wakes it, so idle components cost nothing.
type Ticker interface {
	Tick(now Tick) (progress bool)
}

// Waker is anything that can be told it may have work: a port wakes its
// receiver when a message becomes visible and its sender when space frees.
type Waker interface {
	Wake()
}

// Env is what a component needs from the simulation it belongs to: the engine
// and the run's seed (for its random stream).
type Env struct {
	Engine *Engine
	Seed   uint64
	// Meters are the busy-time meters of every resource of the
	// simulation (see Meter).
	Meters *Meters
}

// NewEnv returns an environment with a fresh engine.
func NewEnv(seed uint64) *Env { return &Env{Engine: NewEngine(), Seed: seed, Meters: NewMeters()} }

// TickDriver ticks a Ticker on its clock's rising edges while it makes
// progress, and otherwise sleeps until woken. Wake is deduplicated: at most
// one tick event is pending at any time, and a component never ticks twice on
// one edge.
type TickDriver struct {
	name     string
	clock    ClockDomain
	eng      *Engine
	t        Ticker
	pending  bool
	pendAt   Tick
	lastTick Tick
	ticked   bool
	ticks    uint64
	edge     Tick // the last edge nextEdge found

	// The pending tick's event: its key and, when the queue can take it
	// out again, its handle.
	pendKey Key
	pendH   handle
	// ghosts are the keys of tick events that are not in the queue
	// although an engine that left nothing out would hold them: superseded
	// events taken out, and events a wake would have added for a time that
	// already had one. Such an event runs at its place and does nothing -
	// unless the driver has been woken for its time by then, when it is the
	// one that ticks. A wake for a time therefore takes the smallest key,
	// its own or a ghost's, whose place has not passed.
	ghosts []Key
	// arrivals are wakes by messages arriving on ports (port events of
	// priority PrioDeliver) that are reserved but not queued: at their
	// place the driver will be due to tick no later than the edge they
	// would wake it for, so they would do nothing. One is queued at its key
	// as soon as that may no longer hold (after a tick).
	arrivals []arrival
}

type arrival struct {
	k Key
	h Handler
}

var _ Handler = (*TickDriver)(nil)
var _ Waker = (*TickDriver)(nil)

// NewTickDriver returns a driver for t. It does not tick until woken.
func NewTickDriver(name string, clock ClockDomain, eng *Engine, t Ticker) *TickDriver {
	return &TickDriver{name: name, clock: clock, eng: eng, t: t}
}

// Name is the component's hierarchical name.
func (d *TickDriver) Name() string { return d.name }

// Clock is the component's clock domain.
func (d *TickDriver) Clock() ClockDomain { return d.clock }

// Ticks is the number of ticks run so far.
func (d *TickDriver) Ticks() uint64 { return d.ticks }

// Wake schedules a tick at the next edge at or after now (strictly after the
// last tick), unless one is already pending at or before that edge.
func (d *TickDriver) Wake() {
	at := d.nextEdge(d.eng.now)
	if d.ticked && at <= d.lastTick {
		at = d.lastTick + d.clock.Period
	}
	d.wakeAt(at)
}

// WakeAt schedules a tick at the first edge at or after t (t >= now).
func (d *TickDriver) WakeAt(t Tick) {
	if t < d.eng.now {
		t = d.eng.now
	}
	at := d.nextEdge(t)
	if d.ticked && at <= d.lastTick {
		at = d.lastTick + d.clock.Period
	}
	d.wakeAt(at)
}

// nextEdge is d.clock.NextEdge(t), without a division when t is within a
// period after the last edge it found (a driver is woken near its last
// edge).
func (d *TickDriver) nextEdge(t Tick) Tick {
	e, p := d.edge, d.clock.Period
	switch {
	case t <= e && e-t < p:
		return e
	case t > e && t-e <= p:
		d.edge = e + p
		return d.edge
	}
	d.edge = d.clock.NextEdge(t)
	return d.edge
}

func (d *TickDriver) wakeAt(at Tick) {
	e := d.eng
	if d.pending {
		if d.pendAt <= at {
			return
		}
		// An earlier wake supersedes the pending one. Its event is ignored
		// when it runs (its time no longer matches); it is taken out of the
		// queue when the queue can, and remembered as a ghost.
		if e.Virtual(d.pendKey) && e.remove(d.pendH, d.pendAt) {
			d.ghosts = append(d.ghosts, d.pendKey)
		}
	}
	k := e.Reserve(at, PrioTick)
	if len(d.ghosts) > 0 {
		k = d.ghostFor(k)
	}
	d.pending = true
	d.pendAt = at
	d.pendKey = k
	d.pendH = e.pushTracked(k, d, uint64(at))
}

// ghostFor returns the key the tick of n's time takes, n being the key of
// the event a wake adds: the smallest of n and the ghosts of that time
// whose place has not passed. The others stay ghosts (n among them when a
// ghost is taken); ghosts whose place has passed are forgotten.
func (d *TickDriver) ghostFor(n Key) Key {
	k, keep := n, d.ghosts[:0]
	for _, g := range d.ghosts {
		switch {
		case d.eng.Passed(g):
			continue
		case g.at == n.at && before(&g, &k) == 1:
			g, k = k, g
		}
		keep = append(keep, g)
	}
	clear(d.ghosts[len(keep):])
	d.ghosts = keep
	return k
}

// Handle runs one tick.
func (d *TickDriver) Handle(now Tick, arg uint64) {
	if !d.pending || Tick(arg) != d.pendAt {
		return // superseded wake
	}
	d.pending = false
	d.lastTick = now
	d.ticked = true
	d.ticks++
	if d.t.Tick(now) {
		d.wakeAt(now + d.clock.Period)
	}
	if len(d.arrivals) > 0 {
		d.checkArrivals(now)
	}
}

// arrival is a port's message becoming visible at at, which wakes the
// driver there (h, at priority PrioDeliver). When the driver is due to tick
// by the edge that wake would ask for, the event would do nothing and is
// only reserved.
func (d *TickDriver) arrival(at Tick, h Handler) {
	k := d.eng.Reserve(at, PrioDeliver)
	if d.pending && d.pendAt <= d.clock.NextEdge(at) && d.eng.Virtual(k) {
		d.arrivals = append(d.arrivals, arrival{k, h})
		return
	}
	d.eng.ScheduleKey(k, h, 0)
}

// checkArrivals, after a tick at now, forgets the reserved arrivals whose
// place has passed and queues those that would no longer do nothing.
func (d *TickDriver) checkArrivals(now Tick) {
	keep := d.arrivals[:0]
	for _, a := range d.arrivals {
		switch {
		case a.k.at <= now:
		case d.pending && d.pendAt <= d.clock.NextEdge(a.k.at):
			keep = append(keep, a)
		default:
			d.eng.ScheduleKey(a.k, a.h, 0)
		}
	}
	clear(d.arrivals[len(keep):])
	d.arrivals = keep
}
