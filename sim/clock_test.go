package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClockConvertsCyclesAndTime(t *testing.T) {
	c, err := NewClockDomain("NIC", 1000) // 1 GHz
	require.NoError(t, err)
	require.Equal(t, Tick(5000), c.CyclesToTicks(5))
	require.Equal(t, Cycles(5), c.Cycle(5000))
	require.Equal(t, Cycles(5), c.Cycle(5999), "Cycle counts the last edge at or before t")
	require.InDelta(t, 1000.0, c.FrequencyMHz(), 1e-9)
}

func TestNextEdgeAlignsToRisingEdges(t *testing.T) {
	c, err := NewClockDomain("NIC", 4000) // 250 MHz
	require.NoError(t, err)
	for _, tc := range []struct{ at, next, after Tick }{
		{0, 0, 4000}, {1, 4000, 4000}, {3999, 4000, 4000}, {4000, 4000, 8000}, {4001, 8000, 8000},
	} {
		require.Equal(t, tc.next, c.NextEdge(tc.at), "NextEdge(%d)", tc.at)
		require.Equal(t, tc.after, c.EdgeAfter(tc.at), "EdgeAfter(%d)", tc.at)
	}
}

func TestClockFromMHzRejectsFractionalPeriods(t *testing.T) {
	c, err := ClockFromMHz("hca", 156.25) // ConnectX-5 hca_core_clock, docs/sources.md 7
	require.NoError(t, err)
	require.Equal(t, Tick(6400), c.Period)
	_, err = ClockFromMHz("odd", 300)
	require.ErrorContains(t, err, "not a whole number of picoseconds")
	_, err = ClockFromMHz("zero", 0)
	require.Error(t, err)
	_, err = NewClockDomain("zero", 0)
	require.Error(t, err)
}

func TestSerializerCarriesRemainderWithoutDrift(t *testing.T) {
	// PCIe gen5 x16: 8 bits / (32 GT/s * 16 lanes * 128/130) = 1040000/65536 ps per byte.
	r, err := NewRate(1040000, 65536)
	require.NoError(t, err)
	const total = uint64(1_000_000_000)
	exact := total * r.PSNum / r.PSDen // fits: 1e9*1.04e6 < 2^64

	// 10^9 bytes in seeded random pieces.
	seed := testSeed(t)
	rng := Stream(seed, "serializer")
	s := NewSerializer(r)
	var sum Tick
	left := total
	for left > 0 {
		n := min(left, 1+rng.Uint64N(4096))
		sum += s.Ticks(n)
		left -= n
	}
	require.Equal(t, Tick(exact), sum, "pieces must add to the exact total")

	// 10^7 single bytes, against the exact fraction.
	s = NewSerializer(r)
	sum = 0
	for i := 0; i < 10_000_000; i++ {
		sum += s.Ticks(1)
	}
	require.Equal(t, Tick(10_000_000*r.PSNum/r.PSDen), sum)
	require.InDelta(t, 504.123, r.GbitPerSecond(), 0.001)
}

// A power-of-two denominator takes the shift path; the same fraction with a
// denominator that is not a power of two takes the division path. Both must
// give the same time for every transfer, including ones whose product
// overflows 64 bits and so fall back to division on the shift path too.
func TestSerializerShiftMatchesDivision(t *testing.T) {
	shift := NewSerializer(Rate{PSNum: 1040000, PSDen: 65536})
	div := NewSerializer(Rate{PSNum: 3 * 1040000, PSDen: 3 * 65536})
	require.True(t, shift.pow2)
	require.False(t, div.pow2)
	seed := testSeed(t)
	rng := Stream(seed, "serializer-shift")
	for i := 0; i < 100_000; i++ {
		n := 1 + rng.Uint64N(8192)
		if i%1000 == 0 {
			n = 1<<45 + rng.Uint64N(1<<20) // product above 2^64
		}
		require.Equal(t, div.Ticks(n), shift.Ticks(n), "transfer %d of %d bytes (seed %d)", i, n, seed)
	}
}

func TestRateRejectsZero(t *testing.T) {
	_, err := NewRate(0, 1)
	require.Error(t, err)
	_, err = NewRate(1, 0)
	require.Error(t, err)
}
