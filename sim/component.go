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
	// The fields every wake and tick reads come first, together.
	eng    *Engine
	t      Ticker
	period Tick // the clock's
	pendAt Tick
	// lastTick is the edge of the last tick; before the first, one period
	// before 0 (Tick wraps), so that lastTick+Period, the earliest edge a
	// tick may take, is 0. Edges are multiples of the period, so an edge
	// before that is at or before the last tick.
	lastTick Tick
	// st is the driver's state (stNone, stPending, stIdle, stQuiet), one
	// byte so that a common path tests it once.
	st uint8
	// stIdle: the pending tick is reserved, not queued (WakeIdle). It is
	// queued at its key when anything wakes the driver before its place;
	// once its place has passed, settle runs its bookkeeping (IdleTick).
	// stQuiet: a tick at quietAt, before the pending one, is reserved at
	// quietKey but not queued: the component said it would do nothing
	// and ask for the pending tick again (QuietTicker). The pending tick
	// stays queued at its key, where that tick's request would have put
	// it back. A wake before quietKey's place queues the quiet tick at
	// its key; once the place has passed, settleQuiet counts it as run.
	// canIdle: the component is an IdleTicker and the driver on the
	// engine's own queue, so that WakeIdle may reserve its tick.
	canIdle bool
	// The pending tick's event: its key and, when the queue can take it
	// out again, its handle.
	pendKey Key
	pendH   handle
	edges   edgeTest // whether a time is an edge of the clock
	ticks   uint64
	// wakeIdler is the component when it is a WakeIdler.
	wakeIdler WakeIdler
	// arrivals are wakes by messages arriving on ports (port events of
	// priority PrioDeliver) that are reserved but not queued: at their
	// place the driver will be due to tick no later than the edge they
	// would wake it for, so they would do nothing. One is queued at its key
	// as soon as that may no longer hold (after a tick).
	arrivals []Key
	// ghosts are the keys of tick events that are not in the queue
	// although an engine that left nothing out would hold them: superseded
	// events taken out, and events a wake would have added for a time that
	// already had one. Such an event runs at its place and does nothing -
	// unless the driver has been woken for its time by then, when it is the
	// one that ticks. A wake for a time therefore takes the smallest key,
	// its own or a ghost's, whose place has not passed.
	ghosts  []Key
	idler   IdleTicker
	quieter QuietTicker

	name  string
	clock ClockDomain
	// woken is the handler of the driver's port arrivals: it wakes the
	// driver, as each port's own wake would.
	woken    arrivalWake
	quietAt  Tick
	quietKey Key
	quiets   uint64 // quiet ticks counted as run without an event
}

// The states of TickDriver.st. Idle and quiet ticks are pending ones, and
// never both: a test of the byte against one constant answers each
// question (pending: not stNone; idle or quiet: above stPending).
const (
	stNone    uint8 = iota // no tick is pending
	stPending              // a tick is pending at pendAt (pendKey), queued
	stIdle                 // pending, and reserved, not queued (WakeIdle)
	stQuiet                // pending, and a quiet tick at quietAt is reserved before it
)

// QuietTicker is a Ticker that can say, when a wake asks for a tick at an
// edge before its pending one, that the tick there would do nothing at
// all and ask for the pending tick again, as things stand: a stage in its
// accept interval woken by a message it cannot take before then. Whatever
// could change that before the edge wakes the driver again.
type QuietTicker interface {
	Ticker
	QuietAt(at, pending Tick) bool
}

// IdleTicker is a Ticker that can say, at one tick, what its next tick
// will do when nothing wakes it before then: IdleTick(at) does exactly
// what Tick(at) would do in that case (bookkeeping only: it makes no
// progress, sends nothing, takes no message that arrived by at and asks
// for no other tick).
type IdleTicker interface {
	Ticker
	IdleTick(at Tick)
}

// WakeIdler is an IdleTicker that can say, when it is woken, that the
// tick the wake asks for will do only what IdleTick does as things stand
// (a stage that accepts nothing and whose head item waits for a full
// queue): then Wake reserves that tick (WakeIdle) instead of queueing it.
// Whatever could change that before the tick wakes the driver again.
type WakeIdler interface {
	IdleTicker
	IdleOnWake(now Tick) bool
	// IdleTickOnWake is IdleTick(at) then IdleOnWake(now) in one call:
	// a wake finding that the reserved idle tick at at has passed.
	IdleTickOnWake(at, now Tick) bool
}

// arrivalWake wakes its driver when a message arriving on one of the
// driver's ports becomes visible.
type arrivalWake struct{ d *TickDriver }

func (w *arrivalWake) Handle(Tick, uint64) { w.d.Wake() }

var _ Handler = (*TickDriver)(nil)
var _ Waker = (*TickDriver)(nil)

// NewTickDriver returns a driver for t. It does not tick until woken.
func NewTickDriver(name string, clock ClockDomain, eng *Engine, t Ticker) *TickDriver {
	d := &TickDriver{name: name, clock: clock, period: clock.Period, eng: eng, t: t, lastTick: -clock.Period, edges: newEdgeTest(clock.Period)}
	d.woken.d = d
	d.idler, _ = t.(IdleTicker)
	d.canIdle = d.idler != nil && eng.alt == nil
	d.wakeIdler, _ = t.(WakeIdler)
	d.quieter, _ = t.(QuietTicker)
	return d
}

// Name is the component's hierarchical name.
func (d *TickDriver) Name() string { return d.name }

// Clock is the component's clock domain.
func (d *TickDriver) Clock() ClockDomain { return d.clock }

// Ticks is the number of ticks run so far.
func (d *TickDriver) Ticks() uint64 {
	d.Settle()
	return d.ticks
}

// QuietTicks is the number of ticks counted as run without an event
// because the component said they would do nothing (QuietTicker).
func (d *TickDriver) QuietTicks() uint64 {
	d.Settle()
	return d.quiets
}
