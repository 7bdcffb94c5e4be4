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
