package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRingKeepsFIFOOrderAcrossTheWrap pushes and pops through a ring of
// three many times over, putting a value back at the head on the way (a
// request refused for want of an MSHR keeps its place), including when the
// head is at slot 0: the values come out in order.
func TestRingKeepsFIFOOrderAcrossTheWrap(t *testing.T) {
	r := newRing(3)
	next, want := uint32(0), uint32(0)
	for round := range 20 {
		for r.len() < 3 {
			r.push(next)
			next++
		}
		v := r.pop()
		require.Equal(t, want, v)
		if round%3 == 0 {
			r.pushFront(v) // back at the head: popped again next
			require.Equal(t, v, r.front())
			continue
		}
		want++
	}
	for r.len() > 0 {
		require.Equal(t, want, r.pop())
		want++
	}
	require.Equal(t, next, want)
}

// TestRingOverflowPanics: a push beyond the bound the Spec set is a bug.
func TestRingOverflowPanics(t *testing.T) {
	r := newRing(2)
	r.push(1)
	r.pushFront(0)
	require.Panics(t, func() { r.push(2) })
	require.Panics(t, func() { r.pushFront(2) })
	require.Equal(t, uint32(0), r.pop())
	require.Equal(t, uint32(1), r.pop())
}
