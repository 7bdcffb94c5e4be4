// Package sim is nicsim's discrete-event kernel. It knows nothing about NICs.
//
// # Time
//
// Time is an integer number of picoseconds (Tick); there is no floating-point
// time in the engine. A ClockDomain is defined by its period, so frequencies
// never pass through integer division; ClockFromMHz refuses a frequency whose
// period is not a whole number of picoseconds. Links whose byte time is not a
// whole number of picoseconds (PCIe gen5 x16: 1040000/65536 ps) use a Rate,
// an exact fraction, and a Serializer that carries the remainder from one
// transfer to the next, so any split of N bytes takes exactly
// floor(N*num/den) ps in total.
//
// # Events
//
// The Engine runs events in (time, priority, insertion sequence) order, so a
// run is a pure function of what was scheduled: same inputs and seed give the
// same run. Named priorities (PrioDeliver < PrioWake < PrioTick < PrioDefault
// < PrioStats) order same-tick events in the gem5 manner: messages are
// delivered before components tick. Scheduling in the past is an error.
// A check build (-tags reverseties, SameTimeReversed) runs events of one
// time and priority last scheduled first, and reserves none: a figure that
// moves between the two builds hangs on the simulator's order, not on the
// hardware modelled. Handlers are interface values with an opaque argument word, so scheduling
// allocates nothing.
//
// The queue has three modes, chosen by the number of pending events. Up to
// 64 (a NIC model keeps a few dozen) it is a timing wheel of nanosecond
// slots over the next microseconds, each slot a short list in key order
// whose nodes come from a fixed pool of 256, one per node number, later
// events in a small heap, from which a superseded tick is taken out again.
// Above 64 the wheel holds on, up to 254 events, until a new event has to
// be linked far into a crowded slot's list. Up to 2048 it is one implicit
// 4-ary heap whose keys (time, then priority and sequence packed in one
// word) sit apart from the handlers. Above it the queue is a calendar: a
// ring of unsorted buckets, one per window of about 2048 events, whose
// width follows the measured event spacing; when dispatch reaches a window,
// its bucket is sorted once by a counting sort on the time offset and
// dispatched from the front. Each mode returns to the smaller one at a
// quarter of its bound (of 64 for the wheel).
// PHOLD (BenchmarkPHOLDQueues, 4x10^6 events, 13 runs on a quiet machine):
// 1.49x to 1.51x the events/s of a plain 4-ary heap at N=1000 M=10 and 2.5x
// to 2.8x at N=10000 M=100, with no allocation per event; 1.37x to 1.40x at
// N=64 M=2, 128 pending (3 runs).
//
// An event that would do nothing when it runs need not be queued: Reserve
// takes the place it would take, and the component queues it there
// (ScheduleKey) only if that may change before the place is reached
// (Virtual, Passed). Every other event keeps its place, so the run is the
// same event for event, less the events left out; LeaveNothingOut queues
// them all, for tests that compare.
//
// # Components and ports
//
// A component implements Ticker and is driven by a TickDriver on its clock:
// it ticks on rising edges while it reports progress and sleeps otherwise,
// until a Port wakes it. Ports are bounded and typed; their capacity is a
// credit count. Senders ask CanSend before Send; a message sent at t is
// visible at t+latency; popping a message returns a credit and wakes a sender
// that was refused. Pipelines tick their last stage first so that an item
// moves at most one stage per cycle.
//
// FIFO is the growing first-in first-out buffer the packages above queue
// their work in (the PCIe link's flights, requests and pending writes, the
// NIC scheduler's round robin): it doubles to a power of two and then
// reuses its buffer, so a steady state allocates nothing. A Port keeps its
// own fixed ring, laid out with the fields its hot calls read.
//
// A component that knows at one tick that its next tick can only do
// bookkeeping unless something wakes it first (a stage whose head item will
// find the next queue full) asks for it with WakeIdle: the tick's place in
// the order is reserved, not queued. A wake before that place queues it
// there, and it runs as any tick; otherwise its bookkeeping (IdleTick) runs
// when the component is next woken or its statistics are read
// (Registry.OnRead), with the state of that time. Either way every other
// event runs where it would have. A component that can tell, when it is
// woken, that the tick the wake asks for is such a tick (a WakeIdler: a
// full stage stalled on its output queue, woken by a message it cannot
// take) has Wake reserve it the same way, and one that learns during
// another event of the tick's edge that its queued tick is such a tick (a
// stage whose next item needs a resource just taken) reserves it with
// ReserveIdle.
//
// A wake that asks for a tick before the pending one, when the component
// says that tick would do nothing at all and ask for the pending tick again
// (a QuietTicker: a stage in its accept interval woken by a message it
// cannot take yet), reserves it too: the pending tick stays queued at its
// key, where that request would have put it back. A wake or an arrival
// that may be taken at the quiet tick's edge, before its place, queues it
// there; once its place has passed, it counts as run (QuietTicks).
//
// # Randomness, statistics, tracing
//
// Each component draws from its own stream, derived from the run's seed and
// the component's hierarchical name (Stream), so adding a component never
// changes another's draws. There is no global random source.
//
// Statistics are plain counters and Histograms updated by field access on hot
// paths and registered once, with a unit and a description, in a Registry
// that dumps them sorted by name as JSON (Registry.Struct reads name, unit and
// description from a struct's field tags). Histograms report percentiles within
// 0.1 % (HistogramRelErrorMax); count, min, max and mean are exact.
//
// A Meter measures how busy one resource is over the measured window, from a
// server's service spans (Busy) or a pool's units held (Set), in integer
// unit-picoseconds. A pool's owner may also tell it when a request waits for
// a unit (TrackWaits, Waits): Waited, the share of the window with one
// waiting, tells a pool that holds requests back from one that only reads
// full because its units come back just as they are asked for.
//
// Tracing hooks cost one length check when no tracer is attached.
// ChromeTrace writes the Chrome trace-event format that Perfetto opens.
//
// Expensive checks are guarded by the Invariants constant, true only in
// builds with the invariants tag (make test).
package sim
