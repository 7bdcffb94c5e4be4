package pcie

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicsim/nicsim/sim"
)

// StreamConfig describes a stream of equal DMA transfers kept in flight by
// a closed loop, for sweeps and validation.
type StreamConfig struct {
	Dir              Direction
	SizeBytes        uint64
	Outstanding      int // transfers in flight at most (reads and writes together)
	WarmupTransfers  int // transfers completed before measuring
	MeasureTransfers int // transfers completed while measuring
	// WindowBytes is the host buffer the transfers walk (0: 1 MiB). In
	// order, each transfer starts on the next 4 KiB boundary; with Random,
	// at a uniformly drawn multiple of SizeBytes (pcie-bench's random
	// access, docs/sources.md 1.2).
	WindowBytes uint64
	Random      bool
	Seed        uint64 // the run's seed (0: 1), for the host's and the addresses' streams
}

// StreamResult is what a stream measured between the end of warm-up and
// the end of the measured transfers. Goodput comes from the payload bytes
// of TLPs that crossed the simulated link in that window.
type StreamResult struct {
	Elapsed         sim.Tick
	EffectiveGbps   float64 // payload Gb/s in one direction (reads: CplD down; writes and rdwr: MWr up)
	UpUtilization   float64
	DownUtilization float64
	UpTLPs          uint64
	DownTLPs        uint64
	ReadLatencyNS   sim.Summary // DMA read latency, ns
	Stats           Stats       // full statistics at the end
	Meters          []MeterUse  // every meter of the link, by name, over the measured window
	BoundBy         MeterUse    // the busiest meter: the resource that binds the stream
}

// MeterUse is one meter's utilisation over a measured window.
type MeterUse struct {
	Name        string
	Unit        string
	Capacity    uint64
	Utilisation float64
}

// DefaultStreamConfig picks counts that make the steady-state measurement
// accurate to well under 0.1 %: at least 2000 transfers or 1 MiB measured.
func DefaultStreamConfig(dir Direction, size uint64, spec Spec) StreamConfig {
	m := 2000
	if b := int((1 << 20) / size); b > m {
		m = min(b, 20000)
	}
	if size >= 1024 {
		m = max(300, int((2<<20)/size))
	}
	return StreamConfig{Dir: dir, SizeBytes: size,
		Outstanding:     min(max(spec.DMAReadQueueDepth, spec.DMAWriteQueueDepth)+spec.TagsMax, 256),
		WarmupTransfers: max(m/4, 16), MeasureTransfers: m}
}

type streamDriver struct {
	dma          *DMA
	eng          *sim.Engine
	cfg          StreamConfig
	inflight     int
	completed    int
	issued       int
	nextWrite    bool
	addrR        uint64
	addrW        uint64
	rng          *rand.Rand
	env          *sim.Env
	t0           sim.Tick
	up0, down0   uint64
	busyU, busyD uint64
	tlpU, tlpD   uint64
	err          error
	warmLat      sim.Histogram
}

// Handle is the transfer-completion callback.
func (s *streamDriver) Handle(now sim.Tick, arg uint64) {
	s.inflight--
	s.completed++
	st := s.dma.l.Stats()
	if s.completed == s.cfg.WarmupTransfers {
		s.t0 = now
		s.up0, s.down0 = st.Up.PayloadBytes, st.Down.PayloadBytes
		s.busyU, s.busyD = st.Up.BusyPS, st.Down.BusyPS
		s.tlpU, s.tlpD = st.Up.TLPCount(), st.Down.TLPCount()
		s.warmLat = st.ReadLatencyPS
		st.ReadLatencyPS = sim.Histogram{}
		if err := s.env.Meters.Window(now, now+streamHorizon, 0); err != nil {
			s.err = err
		}
	}
	if s.completed >= s.cfg.WarmupTransfers+s.cfg.MeasureTransfers {
		s.eng.Stop()
		return
	}
	s.fill()
}

// Wake is called when the DMA queue frees room.
func (s *streamDriver) Wake() { s.fill() }

func (s *streamDriver) fill() {
	for s.inflight < s.cfg.Outstanding && s.dma.CanAccept() && s.err == nil {
		write := s.cfg.Dir == DirWrite || (s.cfg.Dir == DirRdWr && s.nextWrite)
		var err error
		if write {
			err = s.dma.Write(1<<32+s.next(&s.addrW), s.cfg.SizeBytes, s, 1)
		} else {
			err = s.dma.Read(1<<33+s.next(&s.addrR), s.cfg.SizeBytes, s, 0)
		}
		if err != nil {
			s.err = err
			return
		}
		s.nextWrite = !s.nextWrite
		s.inflight++
		s.issued++
	}
}

// next is the offset in the window of the next transfer. In order, each
// starts on a 4 KiB boundary, so splitting is the aligned case of the byte
// model.
func (s *streamDriver) next(walk *uint64) uint64 {
	window := s.cfg.WindowBytes
	if window == 0 {
		window = 1 << 20
	}
	if s.cfg.Random {
		return s.rng.Uint64N(max(window/s.cfg.SizeBytes, 1)) * s.cfg.SizeBytes
	}
	off := *walk % window
	*walk += (s.cfg.SizeBytes + 4095) &^ 4095
	return off
}

// streamHorizon is the far end of the meters' window: the measured window
// ends when the last measured transfer completes, which is not known when
// it starts, so utilisations are rescaled to the real window at the end.
const streamHorizon = sim.Tick(1) << 60

// newStreamEnv builds a stream's environment (tests swap it).
var newStreamEnv = sim.NewEnv

// RunStream simulates one stream on a fresh link whose DMA engine runs at
// nicClock, and measures it.
func RunStream(spec Spec, nicClock sim.ClockDomain, cfg StreamConfig) (StreamResult, error) {
	if cfg.SizeBytes == 0 || cfg.SizeBytes > TransferBytesMax {
		return StreamResult{}, fmt.Errorf("pcie: stream size %d is out of range 1..%d", cfg.SizeBytes, TransferBytesMax)
	}
	if cfg.Outstanding < 1 || cfg.MeasureTransfers < 1 || cfg.WarmupTransfers < 1 {
		return StreamResult{}, fmt.Errorf("pcie: stream needs Outstanding, WarmupTransfers and MeasureTransfers of at least 1")
	}
	if _, err := ParseDirection(string(cfg.Dir)); err != nil {
		return StreamResult{}, err
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = 1
	}
	env := newStreamEnv(seed)
	l, err := New("NIC.PCIe", spec, env, nicClock)
	if err != nil {
		return StreamResult{}, err
	}
	d := &streamDriver{dma: l.DMA(), eng: env.Engine, env: env, cfg: cfg, rng: env.Stream("stream.addresses")}
	l.DMA().AddWaker(d)
	d.fill()
	env.Engine.Run()
	if d.err != nil {
		return StreamResult{}, d.err
	}
	if d.completed < cfg.WarmupTransfers+cfg.MeasureTransfers {
		return StreamResult{}, fmt.Errorf("pcie: stream stopped after %d of %d transfers", d.completed, cfg.WarmupTransfers+cfg.MeasureTransfers)
	}
	st := l.Stats()
	el := env.Engine.Now() - d.t0
	r := StreamResult{Elapsed: el, Stats: *st,
		UpTLPs: st.Up.TLPCount() - d.tlpU, DownTLPs: st.Down.TLPCount() - d.tlpD}
	payload := st.Up.PayloadBytes - d.up0
	if cfg.Dir == DirRead {
		payload = st.Down.PayloadBytes - d.down0
	}
	if el > 0 {
		r.EffectiveGbps = float64(payload) * 8 / float64(el) * 1e3 // bytes/ps -> Gb/s
		r.UpUtilization = float64(st.Up.BusyPS-d.busyU) / float64(el)
		r.DownUtilization = float64(st.Down.BusyPS-d.busyD) / float64(el)
	}
	lat := st.ReadLatencyPS.Summarize()
	ns := func(v float64) float64 { return v / 1e3 }
	r.ReadLatencyNS = sim.Summary{Count: lat.Count, Mean: ns(lat.Mean), Min: lat.Min / 1000, P50: ns(lat.P50),
		P99: ns(lat.P99), P999: ns(lat.P999), Max: lat.Max / 1000}
	l.settleMeters(env.Engine.Now())
	r.Meters, r.BoundBy = meterUses(env.Meters, el)
	return r, nil
}

// meterUses lists every meter's utilisation over the measured window of
// length el (the meters' window runs to streamHorizon) and the busiest.
func meterUses(ms *sim.Meters, el sim.Tick) ([]MeterUse, MeterUse) {
	var out []MeterUse
	var best MeterUse
	for _, m := range ms.List() {
		u := MeterUse{Name: m.Name(), Unit: m.Unit(), Capacity: m.Capacity()}
		if el > 0 {
			u.Utilisation = m.Utilisation() * float64(streamHorizon) / float64(el)
		}
		out = append(out, u)
		if best.Name == "" || u.Utilisation > best.Utilisation {
			best = u
		}
	}
	return out, best
}
