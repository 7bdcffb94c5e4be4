package sim

// FIFO is a first-in first-out queue of values that grows by doubling and
// then reuses its buffer, so a steady state allocates nothing. Callers
// bound its length. Its capacity is a power of two, so positions wrap with
// a mask. The zero FIFO is empty and ready to use.
//
// Besides Push, a value may be built in place: Spare returns the slot the
// next value goes in, and Commit counts it in.
type FIFO[T any] struct {
	buf  []T
	head int
	n    int
}

// Len is the number of values queued.
func (r *FIFO[T]) Len() int { return r.n }

// Cap is the number of values the buffer holds before it grows.
func (r *FIFO[T]) Cap() int { return len(r.buf) }

// Push queues v at the back.
func (r *FIFO[T]) Push(v T) {
	if r.n == len(r.buf) {
		r.Grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// Grow doubles the buffer (to at least 8), keeping the values in order:
// the old buffer, rotated so that the oldest value comes first. Two
// copies rather than a loop keep Push small enough to be inlined.
func (r *FIFO[T]) Grow() {
	nb := make([]T, max(8, 2*len(r.buf)))
	k := copy(nb, r.buf[r.head:])
	copy(nb[k:], r.buf[:r.head])
	r.buf, r.head = nb, 0
}

// Spare returns a pointer to the slot the next value goes in, growing the
// buffer if it is full: a caller fills a large value there in place and
// then counts it in (Commit; a caller that keeps the pointer to fill later
// grows the buffer at once if that fills it). The pointer stays valid
// until the buffer next grows; Drop leaves it in place.
func (r *FIFO[T]) Spare() *T {
	if r.n == len(r.buf) {
		r.Grow()
	}
	return &r.buf[(r.head+r.n)&(len(r.buf)-1)]
}

// Commit counts in the value filled in at Spare's slot. The buffer must
// not be full (Spare makes room).
func (r *FIFO[T]) Commit() { r.n++ }

// Slot returns a pointer to the k-th oldest value (0 <= k < Len), valid
// until the buffer next grows or the value is dropped.
func (r *FIFO[T]) Slot(k int) *T { return &r.buf[(r.head+k)&(len(r.buf)-1)] }

// Front returns a pointer to the oldest value (the FIFO must not be
// empty), valid until the buffer next grows or the value is dropped.
func (r *FIFO[T]) Front() *T { return &r.buf[r.head] }

// Peek returns the oldest value; the FIFO must not be empty.
func (r *FIFO[T]) Peek() T { return r.buf[r.head] }

// At returns the k-th oldest value (0 <= k < Len).
func (r *FIFO[T]) At(k int) T { return r.buf[(r.head+k)&(len(r.buf)-1)] }

// Drop removes the oldest value without clearing its slot: for values
// that hold no pointers, or whose pointers the caller has cleared.
func (r *FIFO[T]) Drop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
}

// Pop removes and returns the oldest value and clears its slot, so that
// the buffer keeps no pointer the value held; the FIFO must not be empty.
func (r *FIFO[T]) Pop() T {
	s := &r.buf[r.head]
	v := *s
	var zero T
	*s = zero
	r.Drop()
	return v
}
