package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFIFOKeepsOrderAcrossGrowthAndWrap: pushes, values built in place
// (Spare, Commit) and drops in random order keep first-in first-out order
// against a slice, through growth with the oldest value anywhere in the
// buffer.
func TestFIFOKeepsOrderAcrossGrowthAndWrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 0))
	var f FIFO[int]
	var ref []int
	next := 0
	for range 20000 {
		switch op := rng.IntN(8); {
		case op < 3:
			f.Push(next)
			ref = append(ref, next)
			next++
		case op < 5:
			*f.Spare() = next
			f.Commit()
			ref = append(ref, next)
			next++
		case len(ref) > 0 && op == 5:
			require.Equal(t, ref[0], f.Pop())
			ref = ref[1:]
		case len(ref) > 0:
			require.Equal(t, ref[0], f.Peek())
			require.Equal(t, ref[0], *f.Front())
			f.Drop()
			ref = ref[1:]
		}
		require.Equal(t, len(ref), f.Len())
		require.LessOrEqual(t, f.Len(), f.Cap())
		if len(ref) > 0 {
			k := rng.IntN(len(ref))
			require.Equal(t, ref[k], f.At(k))
			require.Equal(t, ref[k], *f.Slot(k))
		}
	}
}

// TestFIFOGrowsToAPowerOfTwoAndStops: the buffer starts at 8 and doubles,
// and a FIFO whose length stays bounded stops growing.
func TestFIFOGrowsToAPowerOfTwoAndStops(t *testing.T) {
	var f FIFO[uint32]
	for i := range uint32(9) {
		f.Push(i)
	}
	require.Equal(t, 16, f.Cap())
	for i := range 1000 {
		f.Drop()
		f.Push(uint32(i))
	}
	require.Equal(t, 16, f.Cap())
	require.Equal(t, 9, f.Len())
}

// TestFIFOPopClearsTheSlot: Pop returns the oldest value and leaves no
// pointer of it in the buffer, where Drop leaves the slot as it was.
func TestFIFOPopClearsTheSlot(t *testing.T) {
	var f FIFO[*int]
	a, b := new(int), new(int)
	f.Push(a)
	f.Push(b)
	require.Same(t, a, f.Pop())
	require.Nil(t, f.buf[0], "Pop clears the slot")
	f.Drop()
	require.Same(t, b, f.buf[1], "Drop leaves the slot")
	require.Equal(t, 0, f.Len())
}
