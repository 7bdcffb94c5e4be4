package traffic

import (
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// What binds a generator (results.BoundBy), in this order:
//   - failures (results.BoundFailures) when more of the window's
//     completions failed than succeeded: the resources were busy mostly
//     with operations that failed, so their utilisation does not say what
//     limits the successful ones;
//   - its offered load (results.BoundOfferedLoad) for an open loop that
//     kept up with its arrivals (none dropped, its backlog no longer at
//     the end of the window than at its start), however busy a resource
//     reads: it completed what was offered;
//   - the busiest resource its kind uses (Scope) when it is busy at least
//     results.BoundUtilisationMin of the measured window;
//   - otherwise its window of operations in flight (results.BoundWindow,
//     Little's law): a closed loop, or an open loop whose slots are all
//     busy while its backlog grows.
//
// Busiest names the busiest resource for reference whenever no resource
// is named.

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

// boundEvidence is a generator's own account of its window.
type boundEvidence struct {
	open       bool   // open loop
	behind     bool   // open loop that dropped arrivals or whose backlog grew
	ok, failed uint64 // the window's successful and failed completions
}

// boundBy names what limits a generator of scope sc given its evidence.
// Among the saturated resources a server (a meter of service time) is
// preferred to a pool of held units: a pool reads full when what comes
// after it is the bottleneck (a buffer waiting for the DMA engine), while
// a busy server is busy with its own work.
func boundBy(ms *sim.Meters, sc Scope, ev boundEvidence) results.BoundBy {
	m := ms.Busiest(func(m *sim.Meter) bool { return sc.uses(m.Name()) })
	own := func(res string) results.BoundBy {
		if m == nil {
			return results.BoundBy{Resource: res}
		}
		return results.BoundBy{Resource: res, Utilisation: m.Utilisation(), Busiest: m.Name()}
	}
	switch {
	case ev.failed > ev.ok:
		return own(results.BoundFailures)
	case ev.open && !ev.behind:
		return own(results.BoundOfferedLoad)
	case m == nil || m.Utilisation() < results.BoundUtilisationMin:
		return own(results.BoundWindow)
	}
	if s := ms.Busiest(func(m *sim.Meter) bool { return sc.uses(m.Name()) && !m.Held() }); s != nil {
		if su := s.Utilisation(); su >= results.BoundUtilisationMin {
			return results.BoundBy{Resource: s.Name(), Utilisation: su}
		}
	}
	return results.BoundBy{Resource: m.Name(), Utilisation: m.Utilisation()}
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
