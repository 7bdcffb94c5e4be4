package sim

// Priority orders events that fall on the same tick, in the gem5 style: lower
// values run first. Within one priority, events run in the order they were
// scheduled.
type Priority uint8

// Named priorities. Messages are delivered before components tick on the same
// edge, so a message visible at t can be consumed at t; statistics sample last.
const (
	PrioDeliver Priority = 10
	PrioWake    Priority = 20
	PrioTick    Priority = 30
	PrioDefault Priority = 40
	PrioStats   Priority = 250
)

// Handler receives events. Arg is an opaque word the scheduler chose, so a
// component can tell its own event kinds apart without allocating.
type Handler interface {
	Handle(now Tick, arg uint64)
}

// HandlerFunc adapts a function to Handler. Converting a closure allocates:
// keep HandlerFunc off hot paths.
type HandlerFunc func(now Tick, arg uint64)

// Handle calls f.
func (f HandlerFunc) Handle(now Tick, arg uint64) { f(now, arg) }

// event is one scheduled entry. ord packs priority (top 8 bits) and the
// insertion sequence (low 56 bits), so (at, ord) is a total order.
type event struct {
	at  Tick
	ord uint64
	h   Handler
	arg uint64
}

const seqBits = 56

func (a *event) less(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.ord < b.ord)
}
