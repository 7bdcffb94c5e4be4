package traffic

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// What binds a generator (results.BoundBy), in this order:
//   - failures (results.BoundFailures) when more of the window's
//     completions failed than succeeded: the resources were busy mostly
//     with operations that failed, so their utilisation does not say what
//     limits the successful ones;
//   - its receiver (results.BoundRNRWait) when its QPs spent at least
//     half of the window held by RNR NAKs: the peer had no receive posted,
//     and the Sends waited for the RNR timer, not for a resource;
//   - its offered load (results.BoundOfferedLoad) for an open loop that
//     kept up with its arrivals (none dropped, its backlog no longer at
//     the end of the window than at its start), however busy a resource
//     reads: it completed what was offered;
//   - the busiest resource it can use (meterUse) when it is busy at least
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
	NICName + ".Responder", NICName + ".Requester", TPTName + "."}

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
			return p == TPTName+"." && (sc == ScopeTranslate || sc == ScopeFirmware) ||
				sc == ScopeFirmware && (p == "Host.Driver" || p == NICName+".Firmware")
		}
	}
	return true
}

// Meters of one instance of a replicated resource, on host a or (with
// a "B." before it) host b: a posting core, an execution engine, a QP.
// Each is named by its instance ("Host.Core[3]") and what follows.
var instanceMeters = []string{"Host.Core[", NICName + ".Engine[", NICName + ".QP["}

// firmwareMeters are the driver thread (its time and its MMIO issue path,
// "Host.Driver.MMIO") and the firmware, on either host: only firmware
// commands (FirmwareSource) use them while a run measures.
var firmwareMeters = []string{"Host.Driver", NICName + ".Firmware"}

// meterUse is which meters a generator can be bound by, fixed when its
// source is built: those its kind uses (Scope); of the meters of one
// instance, only its own QPs' (QPSource: QP n posts on core n mod
// host_cores and runs on engine n mod exec_engines, as nic places it);
// the firmware's and the driver thread's only for a kind of firmware
// commands (FirmwareSource). Shared blocks (the PCIe link, DMA engine, TPT,
// wire, doorbell, scheduler, WQE fetch, completion engine, responder) stay
// candidates for every generator whose scope has them.
type meterUse struct {
	sc       Scope
	firmware bool
	own      map[string]bool // instances of its QPs: "Host.Core[1]", "NIC.Engine[0]", "B.NIC.QP[3]"
}

// newMeterUse is the meters src's generator can be bound by on model m.
func newMeterUse(m *Model, src Source) meterUse {
	u := meterUse{sc: ScopeAll, own: map[string]bool{}}
	if ss, ok := src.(ScopedSource); ok {
		u.sc = ss.Scope()
	}
	if fs, ok := src.(FirmwareSource); ok {
		u.firmware = fs.UsesFirmware()
	}
	if qs, ok := src.(QPSource); ok {
		a, b := qs.QPs()
		u.addQPs("", m.NIC, a)
		u.addQPs("B.", m.B, b)
	}
	return u
}

// addQPs marks as the generator's the instances qps of adapter a use
// (host is "" for host a, "B." for host b).
func (u meterUse) addQPs(host string, a *nic.Adapter, qps []*nic.QP) {
	if len(qps) == 0 {
		return
	}
	sp := a.Spec()
	for _, qp := range qps {
		n := qp.Num()
		u.own[fmt.Sprintf("%sHost.Core[%d]", host, n%sp.HostCores)] = true
		u.own[fmt.Sprintf("%s%s.Engine[%d]", host, NICName, n%sp.ExecEngines)] = true
		u.own[fmt.Sprintf("%s%s.QP[%d]", host, NICName, n)] = true
	}
}

// uses reports whether the generator can be bound by the meter named name.
func (u meterUse) uses(name string) bool {
	if !u.sc.uses(name) {
		return false
	}
	local := strings.TrimPrefix(name, "B.")
	for _, p := range instanceMeters {
		if strings.HasPrefix(local, p) {
			i := strings.IndexByte(name, ']')
			return i >= 0 && u.own[name[:i+1]]
		}
	}
	for _, f := range firmwareMeters {
		if local == f || strings.HasPrefix(local, f+".") {
			return u.firmware
		}
	}
	return true
}

// boundEvidence is a generator's own account of its window.
type boundEvidence struct {
	open       bool    // open loop
	behind     bool    // open loop that dropped arrivals or whose backlog grew
	ok, failed uint64  // the window's successful and failed completions
	rnrHeld    float64 // its QPs' time held by RNR NAKs over their time in the window
}

// boundBy names what limits a generator that can use the meters uses
// accepts (meterUse.uses) given its evidence.
// Among the saturated resources a server (a meter of service time) is
// preferred to a pool of held units: a pool reads full when what comes
// after it is the bottleneck (a buffer waiting for the DMA engine), while
// a busy server is busy with its own work. A full pool binds only if
// requests waited for it (queued): one whose units come back just before
// they are asked for again reads full in a closed loop that its round trip
// binds, and the generator is then bound by its window.
func boundBy(ms *sim.Meters, uses func(name string) bool, ev boundEvidence) results.BoundBy {
	m := ms.Busiest(func(m *sim.Meter) bool { return uses(m.Name()) })
	own := func(res string) results.BoundBy {
		if m == nil {
			return results.BoundBy{Resource: res}
		}
		return results.BoundBy{Resource: res, Utilisation: m.Utilisation(), Busiest: m.Name()}
	}
	switch {
	case ev.failed > ev.ok:
		return own(results.BoundFailures)
	case ev.rnrHeld >= 0.5:
		return own(results.BoundRNRWait)
	case ev.open && !ev.behind:
		return own(results.BoundOfferedLoad)
	case m == nil || m.Utilisation() < results.BoundUtilisationMin:
		return own(results.BoundWindow)
	}
	server := func(m *sim.Meter) bool { return uses(m.Name()) && !m.Held() }
	pool := func(m *sim.Meter) bool { return uses(m.Name()) && m.Held() && queued(m) }
	if s := ms.Busiest(server); s != nil {
		if su := s.Utilisation(); su >= results.BoundUtilisationMin {
			beside := func(m *sim.Meter) bool {
				return server(m) || pool(m) && m.ReportsWaits() && m.BindsBeside(s)
			}
			return results.BoundBy{Resource: s.Name(), Utilisation: su, Also: coBound(ms, beside, s)}
		}
	}
	if p := ms.Busiest(pool); p != nil && p.Utilisation() >= results.BoundUtilisationMin {
		return results.BoundBy{Resource: p.Name(), Utilisation: p.Utilisation()}
	}
	return own(results.BoundWindow)
}

// queued reports whether requests waited for the pool m long enough for
// it to bind (results.BoundWaitMin), or its owner does not say.
func queued(m *sim.Meter) bool {
	return !m.ReportsWaits() || m.Waited() >= results.BoundWaitMin
}

// coBound names, busiest first (then by name), the other resources kept
// that are saturated with s (results.BoundBy.Also): servers, and pools
// that requests waited for and that are not held across s
// (sim.Meter.BindsBeside). A pool held across the saturated server (read
// tags across the link their completions queue on) reads full, with
// requests waiting, behind it.
func coBound(ms *sim.Meters, keep func(*sim.Meter) bool, s *sim.Meter) []string {
	floor := max(results.BoundUtilisationMin, s.Utilisation()-results.CoBoundMargin)
	var near []*sim.Meter
	for _, m := range ms.List() {
		if m != s && keep(m) && m.Utilisation() >= floor {
			near = append(near, m)
		}
	}
	slices.SortStableFunc(near, func(a, b *sim.Meter) int { return cmp.Compare(b.Utilisation(), a.Utilisation()) })
	var out []string
	for _, m := range near {
		out = append(out, m.Name())
	}
	return out
}

// utilisation lists every meter's busy fraction over the window.
func utilisation(ms *sim.Meters) []results.ResourceUse {
	var out []results.ResourceUse
	for _, m := range ms.List() {
		u := results.ResourceUse{Name: m.Name(), Unit: m.Unit(), Capacity: m.Capacity(), Utilisation: m.Utilisation()}
		if m.ReportsWaits() {
			w := m.Waited()
			u.Waited = &w
		}
		out = append(out, u)
	}
	return out
}
