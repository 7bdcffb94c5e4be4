package pcie

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIdealGoodputMatchesByteModel checks the accuracy contract of
// docs/accuracy.md: with no latency, tag or credit limits, the goodput of TLPs
// crossing the simulated link equals the byte-count model of docs/sources.md
// 11 within 1 %. The expected figure is computed here from the section's
// constants, not by the package's model.
func TestIdealGoodputMatchesByteModel(t *testing.T) {
	type link struct{ gen, lanes int }
	links := []link{{3, 8}, {4, 16}, {5, 16}}
	// Section 11: bytes between ACKs (= between UpdateFCs), gen3 values also
	// used for gen4/gen5.
	interval := map[[2]int]float64{{8, 128}: 163, {8, 256}: 203, {16, 128}: 144, {16, 256}: 168}
	gts := map[int]float64{3: 8, 4: 16, 5: 32}
	sizes := []uint64{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}
	if testing.Short() {
		sizes = []uint64{8, 64, 256, 1024, 4096}
	}
	worst := 0.0
	for _, lk := range links {
		for _, mps := range []int{128, 256} {
			for _, dir := range []Direction{DirRead, DirWrite, DirRdWr} {
				for _, size := range sizes {
					name := fmt.Sprintf("gen%dx%d/mps%d/%s/%dB", lk.gen, lk.lanes, mps, dir, size)
					spec := DefaultSpec()
					spec.Gen, spec.Lanes, spec.MPSBytes, spec.MRRSBytes = lk.gen, lk.lanes, mps, 512
					spec = IdealSpec(spec)

					raw := gts[lk.gen] * 128 / 130 * float64(lk.lanes) // Gb/s
					a := interval[[2]int{lk.lanes, mps}]
					avail := raw * (1 - 8/a - 8/a - 4.0/1538)
					n := func(b uint64) float64 { return math.Ceil(float64(size) / float64(b)) }
					s := float64(size)
					var up, down float64
					switch dir {
					case DirWrite:
						up = s + n(uint64(mps))*24
					case DirRead:
						up, down = n(512)*24, s+n(uint64(mps))*20
					case DirRdWr:
						up, down = s+n(uint64(mps))*24+n(512)*24, s+n(uint64(mps))*20
					}
					want := avail * s / math.Max(up, down)

					r, err := RunStream(spec, rnicClock, DefaultStreamConfig(dir, size, spec))
					require.NoError(t, err, name)
					e := math.Abs(r.EffectiveGbps/want - 1)
					worst = math.Max(worst, e)
					require.Less(t, e, 0.01, "%s: simulated %.4f Gb/s, byte model %.4f Gb/s", name, r.EffectiveGbps, want)
				}
			}
		}
	}
	t.Logf("largest error against the byte model: %.4f %%", 100*worst)
}

func TestByteModelKnownValues(t *testing.T) {
	// docs/sources.md 11: gen3 x8 raw = 63.015 Gb/s.
	require.InDelta(t, 63.015, RawGbps(3, 8), 0.001)
	require.InDelta(t, 4.0, RawGbps(1, 2), 1e-9)
	// docs/sources.md 1.3: large writes measured 53.0 Gb/s, matching the model within 0.2 %.
	s := DefaultSpec()
	require.InDelta(t, 53.0, ByteModelGoodputGbps(s, DirWrite, 2048), 0.2)
	require.Equal(t, uint64(24), OverheadBytes(KindMWr, true, false))
	require.Equal(t, uint64(20), OverheadBytes(KindMRd, false, false))
	require.Equal(t, uint64(24), OverheadBytes(KindCplD, true, true))
}
