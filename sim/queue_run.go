package sim

import (
	"math/bits"
	"slices"
)

// windowRun is the calendar's current window, sorted once when the window is
// loaded and then consumed from the front: dispatching from it is a read and
// an increment, with no comparison against the rest of the window.
//
// The sort is a counting sort on the time offset within the window (one
// sub-bucket per entry on average, so no comparisons), followed by an
// insertion pass that orders the few entries sharing a sub-bucket by
// (time, priority, sequence). A window whose insertion pass would be long
// (many entries on the same tick in a scrambled order) is sorted by
// comparison instead.
type windowRun struct {
	ev   []event // ev[head:] in order
	head int
	cnt  []uint32 // counting-sort counters, reused
}

// empty reports whether every entry has been taken.
func (r *windowRun) empty() bool { return r.head == len(r.ev) }

// first is the key of the next entry. The run must not be empty.
func (r *windowRun) first() qkey { return qkey{r.ev[r.head].at, r.ev[r.head].ord} }

// take removes and returns the next entry. The run must not be empty.
func (r *windowRun) take() event {
	ev := r.ev[r.head]
	r.head++
	if r.head == len(r.ev) {
		clear(r.ev) // drop handler references for the GC
		r.ev, r.head = r.ev[:0], 0
	}
	return ev
}

// drain appends the remaining entries to dst and empties the run.
func (r *windowRun) drain(dst []event) []event {
	dst = append(dst, r.ev[r.head:]...)
	clear(r.ev)
	r.ev, r.head = r.ev[:0], 0
	return dst
}

// fill sorts src, the entries of the window of 2^shift ticks starting at
// start, into the run, which must be empty; src is clobbered. Entries of one
// bucket come in the order they were scheduled, except after the ring was
// rebuilt.
func (r *windowRun) fill(src []event, start Tick, shift uint) {
	k := len(src)
	r.ev = slices.Grow(r.ev[:0], k)[:k]
	// One sub-bucket per entry on average.
	sb := min(uint(bits.Len(uint(k))), shift)
	r.byTime(r.ev, src, start, shift-sb, 1<<sb)
	budget := 4*k + 64
	if insertionSort(r.ev, budget) {
		return
	}
	// Many entries on few ticks, scheduled under different priorities: sort
	// by priority, then (stably) by time, and the insertion pass is short
	// again for entries that came in the order they were scheduled.
	r.byPrio(src, r.ev)
	r.byTime(r.ev, src, start, shift-sb, 1<<sb)
	if insertionSort(r.ev, budget) {
		return
	}
	slices.SortFunc(r.ev, func(a, b event) int {
		if a.less(&b) {
			return -1
		}
		return 1
	})
}

// byTime is a stable counting sort of src into dst by (at-start)>>sub, which
// must be below nsub.
func (r *windowRun) byTime(dst, src []event, start Tick, sub uint, nsub int) {
	cnt := r.counters(nsub)
	for i := range src {
		cnt[uint64(src[i].at-start)>>sub+1]++
	}
	for i := 1; i <= nsub; i++ {
		cnt[i] += cnt[i-1]
	}
	for i := range src {
		s := uint64(src[i].at-start) >> sub
		dst[cnt[s]] = src[i]
		cnt[s]++
	}
}

// byPrio is a stable counting sort of src into dst by priority.
func (r *windowRun) byPrio(dst, src []event) {
	const np = 256
	cnt := r.counters(np)
	for i := range src {
		cnt[src[i].ord>>seqBits+1]++
	}
	for i := 1; i <= np; i++ {
		cnt[i] += cnt[i-1]
	}
	for i := range src {
		p := src[i].ord >> seqBits
		dst[cnt[p]] = src[i]
		cnt[p]++
	}
}

// counters returns n+1 zeroed counters.
func (r *windowRun) counters(n int) []uint32 {
	if cap(r.cnt) < n+1 {
		r.cnt = make([]uint32, n+1)
	}
	cnt := r.cnt[:n+1]
	clear(cnt)
	return cnt
}

// insertionSort sorts ev by (time, priority, sequence) if that takes at most
// budget moves, and reports whether it did; ev is a permutation of its input
// either way, and entries equal in (time, priority) that were in sequence
// order still are.
func insertionSort(ev []event, budget int) bool {
	for i := 1; i < len(ev); i++ {
		if !ev[i].less(&ev[i-1]) {
			continue
		}
		x := ev[i]
		j := i
		for j > 0 && x.less(&ev[j-1]) {
			ev[j] = ev[j-1]
			j--
			budget--
		}
		ev[j] = x
		if budget < 0 {
			return false
		}
	}
	return true
}
