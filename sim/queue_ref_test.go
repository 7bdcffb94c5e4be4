package sim

// heap4Queue is the reference queue of the speed comparisons: a plain
// implicit 4-ary min-heap of whole events, ordered by (time, priority,
// sequence), with no other structure.
type heap4Queue struct {
	h []event
}

func (q *heap4Queue) Len() int { return len(q.h) }

func (q *heap4Queue) push(ev event) {
	q.h = append(q.h, ev)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !ev.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

func (q *heap4Queue) peek() Tick { return q.h[0].at }

func (q *heap4Queue) pop() event {
	h := q.h
	ev := h[0]
	last := len(h) - 1
	x := h[last]
	h[last] = event{}
	h = h[:last]
	q.h = h
	n := len(h)
	if n == 0 {
		return ev
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if h[j].less(&h[m]) {
				m = j
			}
		}
		if !h[m].less(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return ev
}
