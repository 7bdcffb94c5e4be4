package workloads

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/nicsim/nicsim/sim"
)

// Kind is one operation kind a generator can issue (dma_read, translate,
// fast_register_invalidate; later bind, register_mr, ...). A kind
// registers itself from an init function with RegisterKind; the loader,
// generators, statistics, CLI and docs need no change to gain a kind.
type Kind struct {
	Name    string // the `kind:` value in a file
	Summary string // one line for `nicsim check -kinds` and docs
	// Params returns a new parameter struct (a pointer) holding the kind's
	// defaults. Its exported fields, with yaml and check tags, are the keys
	// the kind adds to a generator's mapping; the strict decoder fills and
	// bounds them. nil: the kind has no parameters.
	Params func() any
	// Check validates the parameters against the whole workload (that a
	// named region exists, that sizes fit it, ...), reporting with
	// c.Errorf. It runs only when the file decoded cleanly. May be nil.
	Check func(c *Checker, w *Workload, g *Generator)
	// New builds the operation source of one generator on a built model,
	// once per run. rng is the generator's own stream for operation
	// parameters (sim.Stream(seed, "gen.<name>.ops")).
	New func(m *Model, g *Generator, rng *rand.Rand) (Source, error)
}

// Source starts the operations of one generator.
type Source interface {
	// Start starts one operation. It returns ErrBusy when the model cannot
	// take the operation now (nothing started); the generator tries again
	// after any generator's next completion or after Model.Kick. Start sets
	// op.Bytes (bytes the operation moves or covers, for throughput). When
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
	Bytes  uint64 // set by Source.Start
}

// ErrBusy is returned by Source.Start when the model has no room now.
var ErrBusy = errors.New("workloads: model busy")

var kinds []*Kind

// RegisterKind adds a kind; call it from an init function. It panics on a
// duplicate or empty name (a programming error).
func RegisterKind(k Kind) {
	if k.Name == "" || k.New == nil {
		panic("workloads: RegisterKind needs a name and New")
	}
	if _, dup := LookupKind(k.Name); dup {
		panic("workloads: kind registered twice: " + k.Name)
	}
	kinds = append(kinds, &k)
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Name < kinds[j].Name })
}

// LookupKind finds a registered kind.
func LookupKind(name string) (*Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// Kinds lists the registered kinds sorted by name.
func Kinds() []*Kind { return kinds }

// KindNames lists the registered kinds' names, sorted.
func KindNames() []string {
	n := make([]string, len(kinds))
	for i, k := range kinds {
		n[i] = k.Name
	}
	return n
}

// Checker reports problems found by a kind's Check at keys of its
// generator, with the file position of the key (or of the generator when
// the key has its default).
type Checker struct {
	d    *decoder
	base string
}

// Errorf reports a problem with key (a key of the generator's mapping,
// possibly dotted, or "" for the generator itself).
func (c *Checker) Errorf(key, format string, args ...any) {
	c.d.errPath(joinPath(c.base, key), format, args...)
}

// regionByName finds a region of the workload.
func (w *Workload) regionByName(name string) (*Region, bool) {
	for i := range w.Regions {
		if w.Regions[i].Name == name {
			return &w.Regions[i], true
		}
	}
	return nil, false
}

func badKind(name string) error {
	return fmt.Errorf("workloads: unknown operation kind %q", name)
}

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
