package sim

import "strings"

// A pool (a meter fed by Set that does not serve) can read full without
// limiting anything: in a closed loop whose round trip sets the rate, each
// unit may come back just before the next request for it, so the pool is
// full nearly all the time and no request waits for it. A bigger pool then
// buys nothing. Its owner tells the meter when a request waits for a unit
// (Waits), and the share of the window with one waiting (Waited) says
// whether the pool holds anything back.

// TrackWaits declares that the meter's owner reports, with Waits, when
// requests wait for a unit; until it says otherwise, none waits.
// A nil meter (one its owner failed to register) ignores it.
func (m *Meter) TrackWaits() {
	if m != nil {
		m.reportsWaits = true
	}
}

// Waits records, at now, whether a request of the resource's users waits
// for one of its units: true when the owner refuses a request because every
// unit is held, false once none waits. Only the window's time counts; the
// owner need not repeat a level it gave before. Its owner declares it
// with TrackWaits when it builds the meter.
func (m *Meter) Waits(now Tick, waiting bool) {
	if waiting != m.waiting { // small enough to inline: most calls repeat the level
		m.waitChange(now, waiting)
	}
}

// waitChange is Waits when the level changes.
func (m *Meter) waitChange(now Tick, waiting bool) {
	if m.waiting {
		m.closeWait(now)
	} else {
		m.waitSince = now
	}
	m.waiting = waiting
}

// closeWait counts the wait open since waitSince up to now (clipped to the
// window) and restarts it at now.
func (m *Meter) closeWait(now Tick) {
	ms := m.set
	if !m.waiting || ms.n == 0 {
		return
	}
	if lo, hi := max(m.waitSince, ms.from), min(now, ms.to); hi > lo {
		m.waited += hi - lo
	}
	m.waitSince = now
}

// HeldAcross declares the servers a pool's units are held across, by
// prefix of their meters' names: a read tag from its read request to its
// last completion is held across the link. Requests wait for such a pool
// whenever the server binds, so it is not said to bind beside it
// (BindsBeside); a pool not declared is never said to.
func (m *Meter) HeldAcross(prefixes ...string) {
	if m == nil {
		return // one its owner failed to register
	}
	m.beside = true
	m.across = append(m.across, prefixes...)
}

// BindsBeside reports whether the pool m, when requests wait for it, binds
// beside the saturated server s: it declared the servers it is held across
// (HeldAcross) and s is not one of them.
func (m *Meter) BindsBeside(s *Meter) bool {
	if !m.beside {
		return false
	}
	for _, p := range m.across {
		if strings.HasPrefix(s.name, p) {
			return false
		}
	}
	return true
}

// ReportsWaits reports whether the meter's owner tells it when requests
// wait for a unit (TrackWaits).
func (m *Meter) ReportsWaits() bool { return m.reportsWaits }

// Waited is the fraction of the window in which a request waited for a unit
// (Waits), 0 before the window is set; read it after Meters.Finish.
func (m *Meter) Waited() float64 {
	ms := m.set
	if ms.n == 0 {
		return 0
	}
	return float64(m.waited) / float64(ms.to-ms.from)
}
