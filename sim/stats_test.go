package sim

import (
	"bytes"
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHistogramPercentilesWithinStatedError(t *testing.T) {
	seed := testSeed(t)
	rng := Stream(seed, "hist")
	var h Histogram
	vals := make([]uint64, 200_000)
	for i := range vals {
		// Log-uniform from 1 ps to ~1 s.
		vals[i] = uint64(math.Exp(rng.Float64() * math.Log(1e12)))
		h.Record(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, p := range []float64{0.001, 0.1, 0.5, 0.9, 0.99, 0.999} {
		rank := int(math.Ceil(p * float64(len(vals))))
		want := float64(vals[rank-1])
		got := h.Quantile(p)
		require.InDelta(t, want, got, want*HistogramRelErrorMax+0.5, "p%v", p*100)
	}
	require.Equal(t, vals[0], h.Min())
	require.Equal(t, vals[len(vals)-1], h.Max())
	require.Equal(t, uint64(len(vals)), h.Count())
	require.LessOrEqual(t, HistogramRelErrorMax, 0.001)
}

func TestHistogramSmallValuesAreExact(t *testing.T) {
	var h Histogram
	for v := uint64(1); v <= 100; v++ {
		h.Record(v)
	}
	require.Equal(t, 50.0, h.Quantile(0.5))
	require.Equal(t, 99.0, h.Quantile(0.99))
	require.Equal(t, 100.0, h.Quantile(0.999))
	require.Equal(t, 50.5, h.Mean())
	var m Histogram
	m.Merge(&h)
	m.Merge(&h)
	require.Equal(t, uint64(200), m.Count())
	require.Equal(t, 50.0, m.Quantile(0.5))
}

func TestRegistryRequiresUnitAndDescriptionAndUniqueNames(t *testing.T) {
	r := NewRegistry()
	var c uint64
	require.Error(t, r.Counter("x", "", "d", &c))
	require.Error(t, r.Counter("x", "u", "", &c))
	require.NoError(t, r.Counter("x", "events", "d", &c))
	require.Error(t, r.Counter("x", "events", "d", &c))
}

func TestRegistryStructRegistersTaggedFieldsWithUnitAndDescription(t *testing.T) {
	var s struct {
		Hits    uint64    `stat:"Hits" unit:"accesses" desc:"accesses that hit"`
		Latency Histogram `stat:"LatencyPS" unit:"ps" desc:"access latency"`
		Scratch uint64
	}
	s.Hits = 3
	s.Latency.Record(7)
	r := NewRegistry()
	require.NoError(t, r.Struct("NIC.Cache.", &s))
	snap := r.Snapshot()
	require.Len(t, snap, 2, "the untagged field is not registered")
	require.Equal(t, "NIC.Cache.Hits", snap[0].Name)
	require.Equal(t, "accesses", snap[0].Unit)
	require.Equal(t, "accesses that hit", snap[0].Desc)
	require.Equal(t, uint64(3), *snap[0].Count)
	require.Equal(t, "NIC.Cache.LatencyPS", snap[1].Name)
	require.Equal(t, uint64(1), snap[1].Hist.Count)
	require.Error(t, r.Struct("NIC.Cache.", &s), "registered twice")
}

func TestRegistryStructRefusesAFieldOfAnotherTypeOrWithoutUnit(t *testing.T) {
	var bad struct {
		N uint32 `stat:"N" unit:"events" desc:"a 32-bit counter"`
	}
	require.ErrorContains(t, NewRegistry().Struct("", &bad), "want uint64 or Histogram")
	var noUnit struct {
		N uint64 `stat:"N" desc:"no unit"`
	}
	require.Error(t, NewRegistry().Struct("", &noUnit))
}

func TestRegistryDumpIsSortedByName(t *testing.T) {
	r := NewRegistry()
	var a, b uint64 = 1, 2
	var h Histogram
	h.Record(10)
	require.NoError(t, r.Counter("b.count", "events", "second", &b))
	require.NoError(t, r.Counter("a.count", "events", "first", &a))
	require.NoError(t, r.Histogram("c.lat", "ps", "latency", &h))
	require.NoError(t, r.Formula("d.rate", "events/s", "derived", func() float64 { return math.NaN() }))
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	s := buf.String()
	require.Less(t, bytes.Index(buf.Bytes(), []byte("a.count")), bytes.Index(buf.Bytes(), []byte("b.count")))
	require.Contains(t, s, `"unit": "ps"`)
	require.Contains(t, s, `"value": 0`, "NaN formulas are reported as 0, keeping the JSON valid")
}

// The mean divides the exact sum of the samples: a sum beyond 2^53, where
// a float64 running sum would drop the small samples, and beyond 2^64.
func TestHistogramMeanIsTheExactSumOverTheCount(t *testing.T) {
	var h Histogram
	h.Record(1 << 53)
	h.Record(1)
	h.Record(1)
	require.Equal(t, float64(1<<53+2)/3, h.Mean())
	var w Histogram
	w.Record(math.MaxUint64)
	w.Record(math.MaxUint64)
	w.Record(2)
	require.Equal(t, (2*float64(math.MaxUint64)+2)/3, w.Mean())
	var m Histogram
	m.Merge(&w)
	m.Merge(&w)
	require.Equal(t, w.Mean(), m.Mean())
}

// Min and Max are the extreme samples from the first sample on, 0 when
// there is none, and a merge keeps the extremes of both sides.
func TestHistogramMinAndMaxAreTheExtremeSamples(t *testing.T) {
	var h Histogram
	require.Zero(t, h.Min())
	require.Zero(t, h.Max())
	h.Record(math.MaxUint64)
	require.Equal(t, uint64(math.MaxUint64), h.Min())
	h.Record(7000)
	h.Record(0)
	h.Record(5)
	require.Zero(t, h.Min())
	require.Equal(t, uint64(math.MaxUint64), h.Max())
	var a, b Histogram
	a.Record(40)
	b.Record(30)
	b.Record(50)
	var m Histogram
	m.Merge(&a)
	require.Equal(t, [2]uint64{40, 40}, [2]uint64{m.Min(), m.Max()})
	m.Merge(&b)
	require.Equal(t, [2]uint64{30, 50}, [2]uint64{m.Min(), m.Max()})
	require.Equal(t, 30.0, m.Quantile(0))
}
