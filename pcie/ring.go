package pcie

// ring is a FIFO of values that grows by doubling and then reuses its
// buffer, so a steady state allocates nothing. Callers bound its length.
// Its capacity is a power of two, so positions wrap with a mask.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		nb := make([]T, max(8, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// grow doubles the buffer, keeping the values in order.
func (r *ring[T]) grow() {
	nb := make([]T, max(8, 2*len(r.buf)))
	for i := 0; i < r.n; i++ {
		nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = nb, 0
}

// spare returns a pointer to the slot the next value goes in, growing the
// ring if it is full: a caller fills a large value there in place and
// then counts it in (n++; a caller that keeps the pointer to fill later,
// as launch does, grows the ring at once if that fills it). The pointer
// stays valid until the ring next grows; drop leaves it in place.
func (r *ring[T]) spare() *T {
	if r.n == len(r.buf) {
		r.grow()
	}
	return &r.buf[(r.head+r.n)&(len(r.buf)-1)]
}

// slot returns a pointer to the k-th oldest value (0 <= k < len), valid
// until the ring next grows or the value is dropped.
func (r *ring[T]) slot(k int) *T { return &r.buf[(r.head+k)&(len(r.buf)-1)] }

// front returns a pointer to the oldest value (the ring must not be
// empty), valid until the ring next grows or the value is dropped.
func (r *ring[T]) front() *T { return &r.buf[r.head] }

// peek returns the oldest value; the ring must not be empty.
func (r *ring[T]) peek() T { return r.buf[r.head] }

// drop removes the oldest value without clearing its slot: for values
// that hold no pointers, or whose pointers the caller has cleared.
func (r *ring[T]) drop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
}

// takeSlot returns a free index of *items: the last one freed (put back on
// *free), or a new zero item appended.
func takeSlot[T any](free *[]uint32, items *[]T) uint32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	*items = append(*items, *new(T))
	return uint32(len(*items) - 1)
}

// at returns the k-th oldest value (0 <= k < len).
func (r *ring[T]) at(k int) T { return r.buf[(r.head+k)&(len(r.buf)-1)] }
