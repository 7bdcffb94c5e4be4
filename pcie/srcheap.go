package pcie

// srcHeap is a binary min-heap of MMIO source numbers, ordered by their
// head TLP's ready time, then by their head write's place in the transmit
// order (mmioSrc.at, mmioSrc.seq): no two sources tie. It allocates only
// to grow.
type srcHeap []uint32

func srcLess(srcs []mmioSrc, a, b uint32) bool {
	x, y := &srcs[a], &srcs[b]
	if x.at != y.at {
		return x.at < y.at
	}
	return x.seq < y.seq
}

// push adds source s, whose key is set.
func (h *srcHeap) push(srcs []mmioSrc, s uint32) {
	*h = append(*h, s)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !srcLess(srcs, q[i], q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// pop removes the first source.
func (h *srcHeap) pop(srcs []mmioSrc) {
	q := *h
	n := len(q) - 1
	q[0] = q[n]
	*h = q[:n]
	h.fix(srcs)
}

// fix restores the order after the first source's key grew (or it was
// replaced).
func (h srcHeap) fix(srcs []mmioSrc) {
	i, n := 0, len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && srcLess(srcs, h[c+1], h[c]) {
			c++
		}
		if !srcLess(srcs, h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
