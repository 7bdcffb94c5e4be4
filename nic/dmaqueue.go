package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// dmaQueue is the data-movement channel of the DMA engine (payload reads
// and writes, receive CQEs): a request goes to the DMA engine at once, or,
// when its queue is full, waits here in order until it has room.
type dmaQueue struct {
	a    *Adapter
	wait sim.FIFO[dmaReq]
}

type dmaReq struct {
	write        bool
	h            sim.Handler
	addr, n, arg uint64
}

var _ sim.Waker = (*dmaQueue)(nil)

// submit issues a DMA whose completion is h.Handle(now, arg).
func (q *dmaQueue) submit(write bool, h sim.Handler, addr, n, arg uint64) {
	if q.wait.Len() == 0 && q.a.dma.CanAccept() {
		q.issue(dmaReq{write, h, addr, n, arg})
		return
	}
	q.wait.Push(dmaReq{write, h, addr, n, arg})
	q.a.dma.AddWaker(q)
}

// payload is submit for payload bytes (counted in DataPath.DMABytes).
func (q *dmaQueue) payload(write bool, h sim.Handler, addr, n, arg uint64) {
	q.a.Stats.DataDMABytes += n
	q.submit(write, h, addr, n, arg)
}

func (q *dmaQueue) issue(r dmaReq) {
	var err error
	if r.write {
		err = q.a.dma.Write(r.addr, r.n, r.h, r.arg)
	} else {
		err = q.a.dma.Read(r.addr, r.n, r.h, r.arg)
	}
	if err != nil {
		panic(fmt.Sprintf("nic: %s: data DMA refused after CanAccept: %v", q.a.name, err))
	}
}

// Wake issues waiting requests while the DMA engine has room.
func (q *dmaQueue) Wake() {
	for q.wait.Len() > 0 && q.a.dma.CanAccept() {
		q.issue(q.wait.Pop())
	}
	if q.wait.Len() > 0 {
		q.a.dma.AddWaker(q)
	}
}
