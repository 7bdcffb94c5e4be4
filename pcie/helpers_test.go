package pcie

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/sim/simtest"
)

// rnicClock is the NIC clock of the default preset (1 GHz, nic.DefaultSpec);
// nfpClock the pcie-bench device's (docs/sources.md 7).
var (
	rnicClock = sim.ClockDomain{Name: "NIC.Clock", Period: 1000}
	nfpClock  = sim.ClockDomain{Name: "NFP.Clock", Period: NFP6000ClockPeriodPS}
)

// testSeed returns the seed to use (-seed, else a fresh one) and logs it
// so a failure can be replayed.
func testSeed(t *testing.T) uint64 { return simtest.Seed(t, 0) }

// recorder wraps a receiver and keeps a copy of every TLP it gets.
type recorder struct {
	next receiver
	late bool // take every TLP on arrival, never early
	got  []tlp
	at   []sim.Tick // arrival time of each
}

func (r *recorder) receive(now sim.Tick, t *tlp) {
	r.got = append(r.got, *t)
	r.at = append(r.at, now)
	r.next.receive(now, t)
}

func (r *recorder) early(now, at sim.Tick, t *tlp) bool {
	if r.late || !r.next.early(now, at, t) {
		return false
	}
	r.got = append(r.got, *t)
	r.at = append(r.at, at)
	return true
}

func (r *recorder) inert(t *tlp) bool { return r.next.inert(t) }

// newTestLink builds a link with recorders on both far ends.
func newTestLink(t *testing.T, spec Spec) (*Link, *sim.Env, *recorder, *recorder) {
	env := sim.NewEnv(1)
	l, err := New("pcie", spec, env, rnicClock)
	require.NoError(t, err)
	_, err = l.AddMMIOSource("Host.Core[0]")
	require.NoError(t, err)
	up := &recorder{next: l.up.rx}
	down := &recorder{next: l.down.rx}
	l.up.rx, l.down.rx = up, down
	return l, env, up, down
}

// doneLog records completion callbacks in order.
type doneLog struct {
	args  []uint64
	times []sim.Tick
}

func (d *doneLog) Handle(now sim.Tick, arg uint64) {
	d.args = append(d.args, arg)
	d.times = append(d.times, now)
}
