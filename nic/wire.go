package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// WireSpec is the point-to-point link between two hosts' NICs (docs/accuracy.md:
// a wire with a latency and a rate, no fabric). Each direction serialises
// its packets: a packet of HeaderBytes+payload occupies the direction for
// its byte time, then arrives LatencyNS later.
type WireSpec struct {
	// LatencyNS is propagation plus PHY/MAC latency one way. Assumed 500 ns
	// (a few metres of cable and two MAC/PHY traversals; no switch).
	LatencyNS uint64 `json:"latency_ns"`
	// GbitPerS is the data rate. Assumed 100 (a ConnectX-5 class port).
	GbitPerS uint64 `json:"gbit_per_s"`
	// HeaderBytes is the per-packet overhead. Assumed 78 B: Ethernet 14 +
	// IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 + FCS 4 (RoCEv2).
	HeaderBytes uint32 `json:"header_bytes"`
}

// DefaultWireSpec returns the default wire.
func DefaultWireSpec() WireSpec { return WireSpec{LatencyNS: 500, GbitPerS: 100, HeaderBytes: 78} }

// Validate checks the fields.
func (s WireSpec) Validate() error {
	switch {
	case s.LatencyNS > 1_000_000_000:
		return fmt.Errorf("nic: wire latency_ns = %d, want 0..1e9", s.LatencyNS)
	case s.GbitPerS == 0 || s.GbitPerS > 10_000:
		return fmt.Errorf("nic: wire gbit_per_s = %d, want 1..10000", s.GbitPerS)
	case s.HeaderBytes > 4096:
		return fmt.Errorf("nic: wire header_bytes = %d, want 0..4096", s.HeaderBytes)
	}
	return nil
}

type pktKind uint8

const (
	pktWriteReq pktKind = iota + 1
	pktReadReq
	pktSendReq
	pktAck      // Write/Send done at the responder
	pktReadResp // data of a Read
	pktNak      // refused: status says why (access error or flushed)
)

// packet is one message on the wire. One message is one packet (no MTU
// segmentation; see docs/nic.md Deviations).
type packet struct {
	kind     pktKind
	dstQP    uint32
	wrIdx    uint64 // the initiator's request
	va       uint64
	length   uint64
	token    uint32
	inv      bool   // SendAndInvalidate: token is to be invalidated
	status   Status // pktNak
	data     []byte
	sentAt   sim.Tick
	arriveAt sim.Tick
}

// Wire joins two adapters. End 0 and end 1 each have an adapter.
type Wire struct {
	name  string
	spec  WireSpec
	eng   *sim.Engine
	ends  [2]*Adapter
	dirs  [2]wireDir
	pool  [][]byte // payload buffers for reuse
	Stats WireStats
}

// WireStats counts the wire's traffic.
type WireStats struct {
	Packets [2]uint64
	Bytes   [2]uint64
}

type wireDir struct {
	ser      *sim.Serializer
	freeAt   sim.Tick
	inFlight []packet // FIFO, in arrival order
}

// NewWire joins a and b with a wire of spec. Each adapter gets one wire.
func NewWire(name string, spec WireSpec, a, b *Adapter) (*Wire, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if a == nil || b == nil || a == b || a.wire != nil || b.wire != nil {
		return nil, fmt.Errorf("nic: %s: need two distinct adapters without a wire", name)
	}
	if a.eng != b.eng {
		return nil, fmt.Errorf("nic: %s: adapters on different engines", name)
	}
	// 8000 ps per byte at 1 Gbit/s.
	rate, err := sim.NewRate(8000, spec.GbitPerS)
	if err != nil {
		return nil, err
	}
	w := &Wire{name: name, spec: spec, eng: a.eng, ends: [2]*Adapter{a, b}}
	for i := range w.dirs {
		w.dirs[i].ser = sim.NewSerializer(rate)
	}
	a.wire, a.wireEnd = w, 0
	b.wire, b.wireEnd = w, 1
	return w, nil
}

// buf returns a payload buffer of n bytes from the wire's pool (payloads
// cross from one adapter to the other, so the pool is the wire's).
func (w *Wire) buf(n uint64) []byte {
	for i := len(w.pool) - 1; i >= 0; i-- {
		if uint64(cap(w.pool[i])) >= n {
			b := w.pool[i][:n]
			w.pool[i] = w.pool[len(w.pool)-1]
			w.pool = w.pool[:len(w.pool)-1]
			return b
		}
	}
	return make([]byte, n)
}

// release returns a payload buffer to the pool (bounded: at most
// poolMax buffers are kept).
func (w *Wire) release(b []byte) {
	if cap(b) > 0 && len(w.pool) < poolMax {
		w.pool = append(w.pool, b[:0])
	}
}

const poolMax = 256

// send puts p on the direction away from end from.
func (w *Wire) send(from int, p packet) {
	d := &w.dirs[from]
	now := w.eng.Now()
	start := max(now, d.freeAt)
	bytes := uint64(w.spec.HeaderBytes) + uint64(len(p.data))
	d.freeAt = start + d.ser.Ticks(bytes)
	p.sentAt = now
	p.arriveAt = d.freeAt + sim.Tick(w.spec.LatencyNS)*sim.NS
	d.inFlight = append(d.inFlight, p)
	w.Stats.Packets[from]++
	w.Stats.Bytes[from] += bytes
	w.eng.Schedule(p.arriveAt, sim.PrioDefault, w, uint64(from))
}

// Handle delivers the oldest packet of direction arg to the far end.
func (w *Wire) Handle(now sim.Tick, arg uint64) {
	d := &w.dirs[arg]
	p := d.inFlight[0]
	d.inFlight[0] = packet{}
	d.inFlight = d.inFlight[1:]
	w.ends[1-arg].receive(now, p)
}

// receive takes a packet from the wire: requests go to the responder,
// answers to the requester.
func (a *Adapter) receive(now sim.Tick, p packet) {
	switch p.kind {
	case pktWriteReq, pktReadReq, pktSendReq:
		a.resp.arrive(now, p)
	default:
		a.req.answer(now, p)
	}
}
