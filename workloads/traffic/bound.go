package traffic

import (
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// What binds a generator (results.BoundBy): the busiest resource its kind
// uses (Scope) when it is busy at least results.BoundUtilisationMin of the
// measured window; otherwise nothing is near saturation and the
// generator's own load sets its rate: its window of operations in flight
// (closed loop, Little's law) or its arrival rate (open loop below
// capacity).

// nicBlocks are the meters of host a's cores and NIC blocks besides its
// DMA engine and PCIe link (nic's meter names under NICName and its host).
var nicBlocks = []string{"Host.Core[", "Host.Driver", NICName + ".Doorbell", NICName + ".Scheduler",
	NICName + ".WQEFetch", NICName + ".Engine[", NICName + ".Completion", NICName + ".Firmware",
	NICName + ".Responder", TPTName + "."}

// uses reports whether a kind of scope uses the resource metered by name.
func (sc Scope) uses(name string) bool {
	if sc == ScopeAll {
		return true
	}
	if strings.HasPrefix(name, "B.") || strings.HasPrefix(name, WireName+".") {
		return false // host b and the wire
	}
	if sc == ScopeLocalNIC {
		return true
	}
	for _, p := range nicBlocks {
		if strings.HasPrefix(name, p) {
			return sc == ScopeTranslate && p == TPTName+"."
		}
	}
	return true
}

// boundBy names what limits a generator of scope sc (open: open loop).
// Among the saturated resources a server (a meter of service time) is
// preferred to a pool of held units: a pool reads full when what comes
// after it is the bottleneck (a buffer waiting for the DMA engine), while
// a busy server is busy with its own work.
func boundBy(ms *sim.Meters, sc Scope, open bool) results.BoundBy {
	own := results.BoundWindow
	if open {
		own = results.BoundOfferedLoad
	}
	m := ms.Busiest(func(m *sim.Meter) bool { return sc.uses(m.Name()) })
	if m == nil {
		return results.BoundBy{Resource: own}
	}
	u := m.Utilisation()
	if u < results.BoundUtilisationMin {
		return results.BoundBy{Resource: own, Utilisation: u, Busiest: m.Name()}
	}
	if s := ms.Busiest(func(m *sim.Meter) bool { return sc.uses(m.Name()) && !m.Held() }); s != nil {
		if su := s.Utilisation(); su >= results.BoundUtilisationMin {
			return results.BoundBy{Resource: s.Name(), Utilisation: su}
		}
	}
	return results.BoundBy{Resource: m.Name(), Utilisation: u}
}

// utilisation lists every meter's busy fraction over the window.
func utilisation(ms *sim.Meters) []results.ResourceUse {
	var out []results.ResourceUse
	for _, m := range ms.List() {
		out = append(out, results.ResourceUse{Name: m.Name(), Unit: m.Unit(), Capacity: m.Capacity(),
			Utilisation: m.Utilisation()})
	}
	return out
}
