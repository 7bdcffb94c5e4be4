package mtt

// ring is a fixed-capacity FIFO of small indices (request slots, MSHRs,
// write operations). Capacity is set at build time from the Spec bounds, so
// overflowing it is a bug, not back-pressure.
type ring struct {
	buf  []uint32
	head int
	n    int
}

func newRing(capacity int) ring { return ring{buf: make([]uint32, capacity)} }

func (r *ring) len() int { return r.n }

func (r *ring) push(v uint32) {
	if r.n == len(r.buf) {
		panic("mtt: ring overflow (bound violated)")
	}
	i := r.head + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = v
	r.n++
}

// pushFront puts v back at the head (a request refused by a full MSHR file
// keeps its place in line).
func (r *ring) pushFront(v uint32) {
	if r.n == len(r.buf) {
		panic("mtt: ring overflow (bound violated)")
	}
	if r.head == 0 {
		r.head = len(r.buf)
	}
	r.head--
	r.buf[r.head] = v
	r.n++
}

func (r *ring) front() uint32 { return r.buf[r.head] }

func (r *ring) pop() uint32 {
	v := r.buf[r.head]
	if r.head++; r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
	return v
}
