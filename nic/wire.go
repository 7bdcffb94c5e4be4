package nic

import (
	"fmt"

	"github.com/nicsim/nicsim/sim"
)

// WireSpec is the point-to-point link between two hosts' NICs (docs/accuracy.md:
// a wire with a latency and a rate, no fabric). A message travels as RoCEv2
// packets of at most MTUBytes of payload; each direction serialises its
// frames (headers, payload, Ethernet framing) at GbitPerS, and a packet
// arrives LatencyNS after its last byte has left.
type WireSpec struct {
	// LatencyNS is propagation plus PHY/MAC latency one way. Assumed 500 ns
	// (a few metres of cable and two MAC/PHY traversals; no switch).
	LatencyNS uint64 `json:"latency_ns"`
	// GbitPerS is the data rate. Assumed 100 (a ConnectX-5 class port).
	GbitPerS uint64 `json:"gbit_per_s"`
	// HeaderBytes is what every packet carries besides its payload and
	// its transport extension header, from the Ethernet header to the FCS:
	// Ethernet 14 (no VLAN tag, assumed) + IPv4 20 + UDP 8 + BTH 12 +
	// ICRC 4 + FCS 4 = 62 B (RoCEv2: IBTA Annex A17 over UDP/IPv4; IEEE
	// 802.3; RFC 791, 768). The extension headers are added per packet
	// (IBTA vol. 1 ch. 9): RETH 16 B on the first packet of a Write and on
	// a Read request, AETH 4 B on an ACK, a NAK and the first and last
	// packets of a Read response, IETH 4 B on the last packet of a
	// SendAndInvalidate. A frame is at least 64 B (IEEE 802.3).
	HeaderBytes uint32 `json:"header_bytes"`
	// FramingBytes is the line time of a frame beyond its bytes: preamble
	// and start delimiter 8 + inter-frame gap 12 = 20 B (IEEE 802.3).
	FramingBytes uint32 `json:"framing_bytes"`
	// MTUBytes is the path MTU, the most payload one packet carries: 4096,
	// the largest IBTA MTU (256..4096), the usual RoCEv2 setting on a
	// jumbo-frame Ethernet (assumed).
	MTUBytes uint32 `json:"mtu_bytes"`
}

// Transport extension headers and the Ethernet minimum frame (see
// WireSpec.HeaderBytes).
const (
	rethBytes     = 16
	aethBytes     = 4
	iethBytes     = 4
	frameMinBytes = 64
)

// DefaultWireSpec returns the default wire.
func DefaultWireSpec() WireSpec {
	return WireSpec{LatencyNS: 500, GbitPerS: 100, HeaderBytes: 62, FramingBytes: 20, MTUBytes: 4096}
}

// Validate checks the fields.
func (s WireSpec) Validate() error {
	switch {
	case s.LatencyNS > 1_000_000_000:
		return fmt.Errorf("nic: wire latency_ns = %d, want 0..1e9", s.LatencyNS)
	case s.GbitPerS == 0 || s.GbitPerS > 10_000:
		return fmt.Errorf("nic: wire gbit_per_s = %d, want 1..10000", s.GbitPerS)
	case s.HeaderBytes > 4096:
		return fmt.Errorf("nic: wire header_bytes = %d, want 0..4096", s.HeaderBytes)
	case s.FramingBytes > 4096:
		return fmt.Errorf("nic: wire framing_bytes = %d, want 0..4096", s.FramingBytes)
	case s.MTUBytes < 256 || s.MTUBytes > 4096 || s.MTUBytes&(s.MTUBytes-1) != 0:
		return fmt.Errorf("nic: wire mtu_bytes = %d, want 256, 512, 1024, 2048 or 4096", s.MTUBytes)
	}
	return nil
}

// segments is the number of packets of a message of n payload bytes: at
// most MTUBytes each, and one for a message without payload.
func (s WireSpec) segments(n uint64) uint64 {
	return max(1, (n+uint64(s.MTUBytes)-1)/uint64(s.MTUBytes))
}

// segment is the offset and length of packet k of a message of n bytes.
func (s WireSpec) segment(n, k uint64) (off, length uint64) {
	off = k * uint64(s.MTUBytes)
	return off, min(n-off, uint64(s.MTUBytes))
}

// frame is the bytes packet p occupies on the line: payload, headers and
// framing. The extension headers go on the packets IBTA vol. 1 ch. 9 puts
// them on: RETH on a Write's first packet and on a Read request, AETH on
// an ACK, a NAK and a Read response's first and last packets, IETH on a
// SendAndInvalidate's last packet.
func (s WireSpec) frame(p *packet) uint64 {
	first, last := p.seg == 0, !p.more
	var ext uint64
	switch {
	case p.kind == pktWriteReq && first, p.kind == pktReadReq:
		ext = rethBytes
	case p.kind == pktAck, p.kind == pktNak, p.kind == pktRnrNak, p.kind == pktReadResp && (first || last):
		ext = aethBytes
	case p.kind == pktSendReq && p.inv && last:
		ext = iethBytes
	}
	bytes := max(uint64(len(p.data))+ext+uint64(s.HeaderBytes), frameMinBytes)
	return bytes + uint64(s.FramingBytes)
}

type pktKind uint8

const (
	pktWriteReq pktKind = iota + 1
	pktReadReq
	pktSendReq
	pktAck      // Write/Send done at the responder
	pktReadResp // data of a Read
	pktNak      // refused: status says why (access error or flushed)
	pktRnrNak   // a Send found no receive posted: sent again after the RNR timer
)

// packet is one packet on the wire: a whole message of at most MTUBytes of
// payload, or one of the packets a longer message is cut into
// (WireSpec.segment), which leave one after another and arrive one by one.
type packet struct {
	kind     pktKind
	dstQP    uint32
	seg      uint32 // the packet's number in its message (0: the first)
	more     bool   // packets of the message follow this one
	wrIdx    uint64 // the initiator's request
	va       uint64
	length   uint64 // the whole message's payload bytes
	token    uint32
	inv      bool   // SendAndInvalidate: token is to be invalidated
	status   Status // pktNak
	rnrNS    uint64 // pktRnrNak: the responder's minimum RNR timer
	data     []byte // this packet's payload
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

// WireStats counts the wire's traffic per direction (0: from end 0).
type WireStats struct {
	Packets  [2]uint64 // packets (frames)
	Messages [2]uint64
	Bytes    [2]uint64 // line bytes: payload, headers and framing
}

type wireDir struct {
	ser      *sim.Serializer
	freeAt   sim.Tick
	inFlight sim.FIFO[packet] // in arrival order
	meter    *sim.Meter
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
	for i, dir := range []string{".AtoB", ".BtoA"} {
		w.dirs[i].ser = sim.NewSerializer(rate)
		if w.dirs[i].meter, err = a.env.Meters.New(name+dir, "directions", 1); err != nil {
			return nil, err
		}
	}
	a.wire, a.wireEnd = w, 0
	b.wire, b.wireEnd = w, 1
	for _, x := range w.ends { // a transmit buffer holds a packet until it has left
		x.req.tx.meter.HeldAcross(name + ".")
		x.resp.tx.meter.HeldAcross(name + ".")
	}
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

// send puts packet p on the direction away from end from, after what the
// direction already carries, and returns when its last byte has left.
func (w *Wire) send(from int, p packet) sim.Tick {
	if uint64(len(p.data)) > uint64(w.spec.MTUBytes) {
		panic(fmt.Sprintf("nic: %s: a packet of %d B, above the MTU", w.name, len(p.data)))
	}
	d := &w.dirs[from]
	now := w.eng.Now()
	start := max(now, d.freeAt)
	bytes := w.spec.frame(&p)
	d.freeAt = start + d.ser.Ticks(bytes)
	d.meter.Busy(start, d.freeAt)
	p.sentAt = now
	p.arriveAt = d.freeAt + sim.Tick(w.spec.LatencyNS)*sim.NS
	d.inFlight.Push(p)
	w.Stats.Packets[from]++
	if p.seg == 0 {
		w.Stats.Messages[from]++
	}
	w.Stats.Bytes[from] += bytes
	w.eng.Schedule(p.arriveAt, sim.PrioDefault, w, uint64(from))
	return d.freeAt
}

// Handle delivers the oldest packet of direction arg to the far end.
func (w *Wire) Handle(now sim.Tick, arg uint64) {
	d := &w.dirs[arg]
	p := d.inFlight.Pop()
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
