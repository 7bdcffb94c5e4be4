package workloads

import (
	"sort"
)

// Kind is one operation kind a generator can issue (dma_read, translate,
// fast_register_invalidate, ...) as a workload file sees it: its name, the
// keys it adds to a generator and the checks of their values against the
// whole file. What an operation of the kind does on the model is its
// source, in package workloads/traffic (traffic.RegisterSource). A kind
// registers itself from an init function with RegisterKind; the decoder,
// the checks, `nicsim check` and the docs test need no change to gain one.
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
	// Remote kinds drive two hosts: the model of a file with one builds
	// host b and the wire between the hosts.
	Remote bool
	// HostPages, for a kind whose operations move real bytes into host
	// memory (the remote kinds), is the most 4 KiB pages of host a's and
	// host b's memory a generator's operations can write: the loader
	// checks the sum against adapter.nic.host_memory_pages_max and the
	// run enforces it. nil: the kind writes none.
	HostPages func(g *Generator) (a, b uint64)
	// SourceBytes, for a kind whose source keeps more than a record per
	// operation slot (page lists), is those bytes: the memory budget
	// counts them. nil: nothing worth counting.
	SourceBytes func(g *Generator) uint64
}

var kinds []*Kind

// RegisterKind adds a kind; call it from an init function. It panics on a
// duplicate or empty name (a programming error).
func RegisterKind(k Kind) {
	if k.Name == "" {
		panic("workloads: RegisterKind needs a name")
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

// isRemote reports whether kind name drives two hosts.
func isRemote(name string) bool {
	k, ok := LookupKind(name)
	return ok && k.Remote
}

// NeedsHostB reports whether a generator of w has a remote kind.
func (w *Workload) NeedsHostB() bool {
	for i := range w.Generators {
		if isRemote(w.Generators[i].Kind) {
			return true
		}
	}
	return false
}

// HostPages is the most pages of host a's and host b's memory the
// generators of w can write (each kind's HostPages, added up).
func (w *Workload) HostPages() (a, b uint64) {
	for i := range w.Generators {
		g := &w.Generators[i]
		if k, ok := LookupKind(g.Kind); ok && k.HostPages != nil {
			ga, gb := k.HostPages(g)
			a, b = a+ga, b+gb
		}
	}
	return a, b
}

// checkHostPages checks that what the generators can write fits each
// host's memory model, reporting at the generator that takes a host past
// it.
func (d *decoder) checkHostPages(w *Workload) {
	limit := uint64(w.Adapter.NIC.HostMemoryPagesMax)
	var sum [2]uint64
	for i := range w.Generators {
		g := &w.Generators[i]
		k, ok := LookupKind(g.Kind)
		if !ok || k.HostPages == nil {
			continue
		}
		ga, gb := k.HostPages(g)
		for h, n := range [2]uint64{ga, gb} {
			if sum[h] <= limit && sum[h]+n > limit {
				d.errPath(d.elemPath("generators", i), "the remote generators can write %d pages of host %c's memory, more than adapter.nic.host_memory_pages_max = %d",
					sum[h]+n, 'a'+h, limit)
			}
			sum[h] += n
		}
	}
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
