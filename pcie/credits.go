package pcie

import (
	"math/bits"

	"github.com/nicsim/nicsim/sim"
)

// credits is a transmitter's view of its receiver's flow-control credits
// for one direction: header and data credits per class (PCIe Base Spec
// 2.6.1, 3.4). A limit of 0 is infinite. Credits are consumed when a TLP
// starts on the wire and come back when an UpdateFC DLLP carrying them
// arrives from the receiver on the opposite direction.
type credits struct {
	limit  [classCount][2]uint64 // [class][0 header, 1 data]; 0 = infinite
	room   [classCount][2]uint64 // limit, or the largest uint64 for an infinite pool
	used   [classCount][2]uint64
	finite [classCount][2]uint64     // all ones for a finite pool, 0 for an infinite one: a mask
	meters [classCount][2]*sim.Meter // credits in use of each finite pool (nil: infinite)
}

func newCredits(ph, pd, nph, npd, cplh, cpld int) credits {
	var c credits
	c.limit[classP] = [2]uint64{uint64(ph), uint64(pd)}
	c.limit[classNP] = [2]uint64{uint64(nph), uint64(npd)}
	c.limit[classCpl] = [2]uint64{uint64(cplh), uint64(cpld)}
	for cl := range c.limit {
		for i, l := range c.limit[cl] {
			c.room[cl][i], c.finite[cl][i] = l, ^uint64(0)
			if l == 0 {
				c.room[cl][i], c.finite[cl][i] = ^uint64(0), 0
			}
		}
	}
	return c
}

// need is the header and data credits a TLP of class cl with payload
// bytes consumes.
func need(payload uint64) (h, d uint64) { return 1, dataCredits(payload) }

func (c *credits) fits(cl fcClass, payload uint64) bool {
	// An infinite pool's use never reaches the largest uint64.
	h, d := need(payload)
	l := &c.room[cl]
	u := &c.used[cl]
	return u[0]+h <= l[0] && u[1]+d <= l[1]
}

func (c *credits) consume(now sim.Tick, cl fcClass, payload uint64) {
	h, d := need(payload)
	l, u, m := &c.limit[cl], &c.used[cl], &c.meters[cl]
	if l[0] != 0 {
		u[0] += h
		m[0].Set(now, u[0])
	}
	if l[1] != 0 {
		u[1] += d
		m[1].Set(now, u[1])
	}
}

// release gives back the credits ret returns, of the classes whose bits
// cls has: the classes an UpdateFC carries credits of, so that it visits
// no other.
func (c *credits) release(now sim.Tick, ret *[classCount][2]uint64, cls uint8) {
	for ; cls != 0; cls &= cls - 1 { // lowest class first
		cl := bits.TrailingZeros8(cls)
		r := &ret[cl]
		// The header or the data count may be 0 (a pool of infinite
		// credits returns none).
		u, m := &c.used[cl], &c.meters[cl]
		if h := r[0]; h != 0 {
			c.give(now, &u[0], m[0], h)
		}
		if d := r[1]; d != 0 {
			c.give(now, &u[1], m[1], d)
		}
	}
}

// give returns n credits to the pool whose use is *used.
func (c *credits) give(now sim.Tick, used *uint64, m *sim.Meter, n uint64) {
	if n > *used {
		panic("pcie: invariant: more credits returned than consumed")
	}
	*used -= n
	m.Set(now, *used)
}

// waits tells the meters of class cl's pools that lack the credits of a
// TLP with payload bytes that it waits for them.
func (c *credits) waits(now sim.Tick, cl fcClass, payload uint64) {
	h, d := need(payload)
	if m := c.meters[cl][0]; m != nil && c.used[cl][0]+h > c.room[cl][0] {
		m.Waits(now, true)
	}
	if m := c.meters[cl][1]; m != nil && c.used[cl][1]+d > c.room[cl][1] {
		m.Waits(now, true)
	}
}

// waited tells class cl's meters that no TLP waits for their credits.
func (c *credits) waited(now sim.Tick, cl fcClass) {
	for _, m := range c.meters[cl] {
		if m != nil {
			m.Waits(now, false)
		}
	}
}

// returnable is the header and data credits a received TLP frees, or zero
// for classes with infinite credits.
func (c *credits) returnable(cl fcClass, payload uint64) (h, d uint64) {
	h, d = need(payload)
	m := &c.finite[cl]
	return h & m[0], d & m[1]
}
