package traffic

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// NewSource builds the operation source of one generator on a built model,
// once per run. rng is the generator's own stream for operation parameters
// (sim.Stream(seed, "gen.<name>.ops")); g.Params is its kind's parameter
// struct, decoded and checked.
type NewSource func(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error)

// Source starts the operations of one generator.
type Source interface {
	// Start starts one operation. It returns ErrBusy when the model cannot
	// take the operation now (nothing started); the generator tries again
	// after any generator's next completion or after Model.Kick. Start sets
	// op.Bytes (payload the operation moves) or op.Units. When
	// the operation ends, the source calls done.Handle(now, op.Index) on
	// success or done.Fail(now, op.Index, reason) on failure, exactly once
	// and never from within Start.
	Start(now sim.Tick, op *Op, done Done) error
}

// Done receives completions; Handle(now, index) is success, so a source can
// hand the generator to a DMA request or a translation as its completion
// handler with the operation's Index as the argument.
type Done interface {
	sim.Handler
	Fail(now sim.Tick, index uint64, reason string)
}

// Op is one operation in flight, owned by its generator.
type Op struct {
	Index  uint64 // identifies the operation to Done; stable while in flight
	Stream int    // the stream (QP) it belongs to
	Bytes  uint64 // payload bytes it moves over the wire or PCIe (goodput); set by Start
	Units  uint64 // what a FigureSource's figure counts (pages registered); set by Start
}

// A FigureSource's operations move no payload over the wire or PCIe
// (registrations, binds, translations): its generator reports no goodput
// but a figure of its own, name and unit (per microsecond of Op.Units:
// "registered_pages", "Mpages/s").
type FigureSource interface {
	Figure() (name, unit string)
}

// Scope says which resources a kind's operations use, so that a
// generator's bound_by names only those (a DMA stream is never bound by the
// NIC's pipeline another generator keeps busy).
type Scope uint8

// Scopes.
const (
	ScopeAll       Scope = iota // every resource of the model (the remote kinds)
	ScopeLocalNIC               // host a's cores, NIC, translation unit and PCIe: not host b or the wire
	ScopeTranslate              // the translation unit and the PCIe link
	ScopeDMA                    // the PCIe link and the DMA engine
	ScopeFirmware               // host a's driver thread, firmware, translation unit, PCIe link and DMA engine: not the posting cores or the send-queue pipeline
)

// A ScopedSource uses fewer resources than all (ScopeAll is the default).
type ScopedSource interface {
	Scope() Scope
}

// A QPSource posts its operations on QPs of its own, on host a and on
// host b: of the meters of one core, one execution engine or one QP, its
// generator can be bound only by those its QPs use.
type QPSource interface {
	QPs() (a, b []*nic.QP)
}

// A FirmwareSource's operations are firmware commands (NdkRegisterMr,
// NdkDeregisterMr): only its generator can be bound by the driver thread
// and the firmware, which no other kind uses while a run measures.
type FirmwareSource interface {
	UsesFirmware() bool
}

// ErrBusy is returned by Source.Start when the model has no room now.
var ErrBusy = errors.New("traffic: model busy")

// Part is one request type inside an operation (the FastRegister and the
// Invalidate of a fast_register_invalidate chain) with its own latency
// histogram in ps. A Source that has parts implements PartSource; the
// summary shows one row per part below its generator's row.
type Part struct {
	Name string         // shown as <generator>/<name>, kind <name>
	Lat  *sim.Histogram // successful requests started after warm-up
}

// PartSource is a Source that reports per-request latencies.
type PartSource interface {
	Parts() []Part
}

var sources = map[string]NewSource{}

// RegisterSource gives the operation kind named kind (registered with
// workloads.RegisterKind) its source; call it from an init function. It
// panics on a kind workloads does not know or one that has a source already
// (programming errors).
func RegisterSource(kind string, n NewSource) {
	if _, ok := workloads.LookupKind(kind); !ok || n == nil {
		panic("traffic: RegisterSource of " + kind + ": not a workloads kind, or no constructor")
	}
	if _, dup := sources[kind]; dup {
		panic("traffic: source registered twice: " + kind)
	}
	sources[kind] = n
}

func newSource(m *Model, g *workloads.Generator, rng *rand.Rand) (Source, error) {
	n, ok := sources[g.Kind]
	if !ok {
		return nil, fmt.Errorf("traffic: operation kind %q has no source", g.Kind)
	}
	return n(m, g, rng)
}
