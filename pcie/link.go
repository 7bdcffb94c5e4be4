package pcie

import (
	"errors"
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// ErrFull is returned when a bounded queue has no room; nothing was queued.
var ErrFull = errors.New("pcie: queue full")

// Link is one PCIe link between a host and the NIC: two independent
// directions (Up: NIC->host, Down: host->NIC), the host's root complex and
// memory, the CPU's MMIO path and the NIC's DMA engine.
type Link struct {
	name   string
	spec   Spec
	eng    *sim.Engine
	up     *tx
	down   *tx
	dma    *DMA
	host   *host
	mmio   *mmio
	nic    nicRx
	ms     *sim.Meters // for the meters of MMIO sources added later
	stats  Stats
	meters []*sim.Meter
}

// New builds a link on env. nicClock is the NIC's clock: the DMA engine
// works in its cycles. The spec is validated first. Every resource that can
// bind a throughput registers a meter on env.Meters (meters.go); random
// host effects draw from env's seeded streams under name.
func New(name string, spec Spec, env *sim.Env, nicClock sim.ClockDomain) (*Link, error) {
	if env == nil || env.Engine == nil || env.Meters == nil {
		return nil, fmt.Errorf("pcie: link %q: nil environment", name)
	}
	if nicClock.Period == 0 {
		return nil, fmt.Errorf("pcie: link %q: NIC clock %q has no period", name, nicClock.Name)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("pcie: link %q: %w", name, err)
	}
	l := &Link{name: name, spec: spec, eng: env.Engine, ms: env.Meters}
	rate := ByteRate(spec.Gen, spec.Lanes)
	iv := DLLPIntervalBytes(spec.Gen, spec.Lanes, spec.MPSBytes)
	lat := sim.FromNanoseconds(spec.LinkLatencyNS)
	mk := func(n string, st *DirStats) *tx {
		return &tx{name: name + "." + n, eng: l.eng, ser: sim.NewSerializer(rate), rate: rate,
			latency: lat, ecrc: spec.ECRC, interval: iv, st: st}
	}
	l.up = mk("Up", &l.stats.Up)
	l.down = mk("Down", &l.stats.Down)
	l.up.peer, l.down.peer = l.down, l.up
	for _, t := range []*tx{l.up, l.down} {
		t.ivTicks, t.dllpTicks = t.bytesTicks(iv), t.bytesTicks(DLLPBytes)
		t.cur = t.inflight.Spare()
		t.endEv, t.arriveEv = txEnd{t}, txArrive{t}
		t.ackAt, t.fcAt, t.skpAt = iv, iv, SKPIntervalBytes
		t.setDue()
	}
	l.up.cred = newCredits(spec.HostPHCredits, spec.HostPDCredits, spec.HostNPHCredits,
		spec.HostNPDCredits, spec.HostCplHCredits, spec.HostCplDCredits)
	l.down.cred = newCredits(spec.NICPHCredits, spec.NICPDCredits, spec.NICNPHCredits,
		spec.NICNPDCredits, spec.NICCplHCredits, spec.NICCplDCredits)
	l.dma = newDMA(l, nicClock)
	_, hostName := owners(name)
	l.host = newHost(l, newHostMem(spec, env, hostName, &l.stats))
	l.mmio = newMMIO(l)
	l.nic = nicRx{l}
	l.up.rx = l.host
	l.down.rx = l.nic
	l.up.wr, l.up.rd, l.up.ocl = &l.dma.wr, &l.dma.rd, classNP
	l.down.down, l.down.mm, l.down.hs, l.down.ocl = true, l.mmio, l.host, classCpl
	if err := l.registerMeters(env.Meters); err != nil {
		return nil, fmt.Errorf("pcie: link %q: %w", name, err)
	}
	return l, nil
}

// Name is the link's hierarchical name.
func (l *Link) Name() string { return l.name }

// Spec is the link's configuration.
func (l *Link) Spec() Spec { return l.spec }

// DMA is the NIC's DMA engine on this link.
func (l *Link) DMA() *DMA { return l.dma }

// Stats is the link's statistics, updated in place.
func (l *Link) Stats() *Stats {
	now := l.eng.Now()
	l.up.idleACK(now)
	l.down.idleACK(now)
	return &l.stats
}

// nicRx is the NIC end of the downstream direction.
type nicRx struct{ l *Link }

// inert: a write-combined line before the last of its MMIO write only
// lands in the NIC's buffer; the write's last line completes it.
// early: the NIC takes each TLP on arrival.
func (n nicRx) early(now, at sim.Tick, t *tlp) bool { return false }

func (n nicRx) inert(t *tlp) bool { return t.kind == KindMWr && !t.last }

func (n nicRx) receive(now sim.Tick, t *tlp) {
	switch t.kind {
	case KindCplD:
		n.l.dma.completion(now, t)
	case KindMWr:
		n.l.mmio.arrived(now, t)
	}
}
