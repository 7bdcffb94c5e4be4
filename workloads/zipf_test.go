package workloads

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestZipfFollowsItsLaw: value min + (k-1)*step comes with probability
// 1/k^s over the harmonic sum, for exponents below, at and above 1, from a
// seeded stream (the same seed gives the same values).
func TestZipfFollowsItsLaw(t *testing.T) {
	const n, draws = 100, 400_000
	for _, s := range []float64{0.6, 1, 1.5} {
		d := Dist{Kind: "zipf", Min: 4096, Max: 4096 + 99*64, Step: 64, S: s}
		rng := sim.Stream(7, "zipf")
		counts := make([]int, n+1)
		for range draws {
			v := d.Sample(rng)
			require.Zero(t, (v-4096)%64)
			k := (v-4096)/64 + 1
			require.LessOrEqual(t, k, uint64(n))
			counts[k]++
		}
		var hn float64
		for k := 1; k <= n; k++ {
			hn += math.Pow(float64(k), -s)
		}
		for _, k := range []int{1, 2, 10, 50} {
			want := math.Pow(float64(k), -s) / hn
			got := float64(counts[k]) / draws
			require.InDelta(t, want, got, 4*math.Sqrt(want/draws)+1e-4, "s=%g k=%d", s, k)
		}
		again := Dist{Kind: "zipf", Min: 4096, Max: 4096 + 99*64, Step: 64, S: s}
		r1, r2 := sim.Stream(3, "z"), sim.Stream(3, "z")
		for range 100 {
			require.Equal(t, d.Sample(r1), again.Sample(r2))
		}
	}
}

// TestZipfMeanAndLargest: with three values 1/1, 1/2, 1/3 the mean rank is
// 3/(11/6) = 18/11; the largest value is the last step below max.
func TestZipfMeanAndLargest(t *testing.T) {
	d := Dist{Kind: "zipf", Min: 100, Max: 125, Step: 10, S: 1}
	require.InDelta(t, 100+(18.0/11-1)*10, d.Mean(), 1e-9)
	require.Equal(t, uint64(120), d.Largest())
}

// TestZipfOffsetsInAWorkloadAndItsErrors: a zipf distribution loads as
// any distribution key and its errors name the key.
func TestZipfOffsetsInAWorkloadAndItsErrors(t *testing.T) {
	f := load(t, minimal+"    offset_bytes: {zipf: {min: 0, max: 1048512, step: 64, s: 0.99}}\n")
	b, err := json.Marshal(f.Points[0].Generators[0].Params)
	require.NoError(t, err)
	require.Contains(t, string(b), `"zipf":{"min":0,"max":1048512,"step":64,"s":0.99}`)
	msg := loadErr(t, minimal+"    offset_bytes: {zipf: {min: 0, max: 100, s: 0}}\n")
	require.Contains(t, msg, "generators.reads.offset_bytes.zipf.s: exponent 0 is out of range (0, 10]")
	msg = loadErr(t, minimal+"    offset_bytes: {zipf: {min: 10, max: 1}}\n")
	require.Contains(t, msg, "needs min, max and s")
	msg = loadErr(t, minimal+"    offset_bytes: {zipf: {min: 0, max: 100, s: 1, step: 0}}\n")
	require.Contains(t, msg, "step must be at least 1")
}
