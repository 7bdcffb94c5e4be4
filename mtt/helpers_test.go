package mtt

import (
	"testing"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/sim/simtest"
)

// testSeed returns the seed to use (-seed, else def) and logs it so a
// failure can be replayed.
func testSeed(t testing.TB, def uint64) uint64 { return simtest.Seed(t, def) }

// fakeDMA is a tiny real component standing in for *pcie.DMA: every read
// completes after a fixed latency, every write after a fixed (posting)
// latency, and at most outstandingMax requests are in flight; a refused
// requester is woken when one completes (wakers stay registered, as on
// *pcie.DMA).
type fakeDMA struct {
	eng            *sim.Engine
	readPS         sim.Tick
	writePS        sim.Tick
	outstandingMax int
	outstanding    int
	wakers         []sim.Waker
	pend           []fakeOp
	freePend       []uint32

	Reads, Writes         uint64
	ReadBytes, WriteBytes uint64
	ReadAddrs             []uint64
}

type fakeOp struct {
	done sim.Handler
	arg  uint64
}

var _ DMA = (*fakeDMA)(nil)

func newFakeDMA(eng *sim.Engine, readPS, writePS sim.Tick, outstandingMax int) *fakeDMA {
	return &fakeDMA{eng: eng, readPS: readPS, writePS: writePS, outstandingMax: outstandingMax}
}

func (d *fakeDMA) CanAccept() bool      { return d.outstanding < d.outstandingMax }
func (d *fakeDMA) AddWaker(w sim.Waker) { d.wakers = append(d.wakers, w) }
func (d *fakeDMA) Handle(now sim.Tick, arg uint64) {
	op := d.pend[arg]
	d.pend[arg] = fakeOp{}
	d.freePend = append(d.freePend, uint32(arg))
	d.outstanding--
	for _, w := range d.wakers {
		w.Wake()
	}
	op.done.Handle(now, op.arg)
}

func (d *fakeDMA) start(lat sim.Tick, done sim.Handler, arg uint64) error {
	if !d.CanAccept() {
		return ErrBusy
	}
	d.outstanding++
	var id uint32
	if n := len(d.freePend); n > 0 {
		id = d.freePend[n-1]
		d.freePend = d.freePend[:n-1]
	} else {
		id = uint32(len(d.pend))
		d.pend = append(d.pend, fakeOp{})
	}
	d.pend[id] = fakeOp{done, arg}
	d.eng.After(lat, sim.PrioDeliver, d, uint64(id))
	return nil
}

func (d *fakeDMA) Read(addr, bytes uint64, done sim.Handler, arg uint64) error {
	d.Reads++
	d.ReadBytes += bytes
	d.ReadAddrs = append(d.ReadAddrs, addr)
	return d.start(d.readPS, done, arg)
}

func (d *fakeDMA) Write(addr, bytes uint64, done sim.Handler, arg uint64) error {
	d.Writes++
	d.WriteBytes += bytes
	return d.start(d.writePS, done, arg)
}

// WritePosted is Write whose sent runs, then done, after the write latency.
func (d *fakeDMA) WritePosted(addr, bytes uint64, sent sim.Handler, sentArg uint64, done sim.Handler, arg uint64) error {
	d.Writes++
	d.WriteBytes += bytes
	return d.start(d.writePS, postedDone{sent, sentArg, done, arg}, 0)
}

// postedDone runs a posted write's sent handler, then its done handler.
type postedDone struct {
	sent    sim.Handler
	sentArg uint64
	done    sim.Handler
	arg     uint64
}

func (p postedDone) Handle(now sim.Tick, _ uint64) {
	p.sent.Handle(now, p.sentArg)
	if p.done != nil {
		p.done.Handle(now, p.arg)
	}
}

// recorder is a done handler that records completions.
type recorder struct {
	n    int
	at   []sim.Tick
	args []uint64
}

func (r *recorder) Handle(now sim.Tick, arg uint64) {
	r.n++
	r.at = append(r.at, now)
	r.args = append(r.args, arg)
}

// smallSpec is a spec small enough for unit tests.
func smallSpec() Spec {
	s := DefaultSpec()
	s.KeyTableEntriesMax = 64
	s.MTTEntriesMax = 4096
	s.MPTCache.EntriesMax = 16
	s.MTTCache.EntriesMax = 64
	return s
}

// registerMR allocates, fills and validates an MR of pages 4 KiB pages at
// baseVA (page-aligned host addresses 0x10_0000_0000 + i*4096), without timing.
func registerMR(t testing.TB, tr *Translator, pd uint32, baseVA uint64, pages uint32, shift uint8, rights Rights) Token {
	t.Helper()
	tok, err := tr.Keys().Alloc(KindMR, pd)
	if err != nil {
		t.Fatal(err)
	}
	off, err := tr.MTT().Alloc(pages)
	if err != nil {
		t.Fatal(err)
	}
	addrs := make([]uint64, pages)
	for i := range addrs {
		addrs[i] = 0x10_0000_0000 + uint64(i)<<shift
	}
	if err := tr.MTT().Set(off, shift, addrs); err != nil {
		t.Fatal(err)
	}
	fbo := baseVA & (1<<shift - 1)
	r := Region{BaseVA: baseVA, Length: uint64(pages)<<shift - fbo, Rights: rights, PageShift: shift,
		FBO: fbo, MTTOffset: off, MTTCount: pages, XlateVA: baseVA}
	if err := tr.Keys().SetRegion(tok, r); err != nil {
		t.Fatal(err)
	}
	return tok
}
