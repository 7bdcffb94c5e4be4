package results

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// decodePNG decodes b with image/png, which checks every chunk's CRC and
// the image data's zlib checksum, as an RGBA image.
func decodePNG(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	out := image.NewRGBA(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

// TestPlotPNGHoldsTheCanvasPixels: a plot's PNG decodes to exactly the
// pixels drawn on its canvas, as 8-bit RGB without alpha.
func TestPlotPNGHoldsTheCanvasPixels(t *testing.T) {
	jobs := timeseriesJobs(utilisationResult(2, 3))
	require.NotEmpty(t, jobs)
	f := jobs[0].f
	c := vgimg.PngCanvas{Canvas: vgimg.New(7*vg.Inch+f.legendWidth(), jobs[0].height)}
	f.p.Draw(draw.New(c))
	var b bytes.Buffer
	require.NoError(t, writeCanvas(&b, c))
	cfg, err := png.DecodeConfig(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	require.Equal(t, color.RGBAModel, cfg.ColorModel, "8-bit RGB decodes as RGBA")
	want := c.Image().(*image.RGBA)
	got := decodePNG(t, b.Bytes())
	require.Equal(t, want.Bounds(), got.Bounds())
	require.True(t, bytes.Equal(want.Pix, got.Pix), "every pixel as drawn")
}

// TestPNGImageDataSpansSeveralChunks: image data longer than one IDAT
// chunk (noise, which zlib cannot shrink) is cut into chunks that decode
// to the image.
func TestPNGImageDataSpansSeveralChunks(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d (replay: set seed to it)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	m := image.NewRGBA(image.Rect(0, 0, 300, 200))
	for i := range m.Pix {
		m.Pix[i] = byte(rng.Uint32())
		if i%4 == 3 {
			m.Pix[i] = 0xff
		}
	}
	var b bytes.Buffer
	require.NoError(t, writePNG(&b, m))
	require.Greater(t, bytes.Count(b.Bytes(), []byte("IDAT")), 1)
	require.True(t, bytes.Equal(m.Pix, decodePNG(t, b.Bytes()).Pix))
}

// TestPNGOfATranslucentImageIsImagePNGs: an image that is not opaque is
// written by image/png, alpha and all.
func TestPNGOfATranslucentImageIsImagePNGs(t *testing.T) {
	m := image.NewRGBA(image.Rect(0, 0, 4, 3))
	m.Set(1, 1, color.RGBA{0x20, 0x40, 0x60, 0x80})
	var got, want bytes.Buffer
	require.NoError(t, writePNG(&got, m))
	require.NoError(t, (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&want, m))
	require.Equal(t, want.Bytes(), got.Bytes())
	require.Equal(t, uint8(0x80), decodePNG(t, got.Bytes()).RGBAAt(1, 1).A)
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		return 0, errDiskFull
	}
	w.n -= len(b)
	return len(b), nil
}

// TestPNGWriteErrorIsReturned: a PNG that cannot be written whole returns
// the writer's error, wherever it fails.
func TestPNGWriteErrorIsReturned(t *testing.T) {
	m := image.NewRGBA(image.Rect(0, 0, 300, 200))
	for i := range m.Pix {
		m.Pix[i] = byte(i * i)
		if i%4 == 3 {
			m.Pix[i] = 0xff
		}
	}
	var whole bytes.Buffer
	require.NoError(t, writePNG(&whole, m))
	for _, n := range []int{0, 20, whole.Len() / 2, whole.Len() - 1} {
		require.ErrorIs(t, writePNG(&failWriter{n}, m), errDiskFull, "failing after %d bytes", n)
	}
}

// TestPNGPlotIsTheSameWithoutItsWhiteBackground: a plot drawn on a PNG
// canvas by drawPlot, which leaves out a white background's fill, has
// every pixel of the plot drawn with it, whatever its background, and
// keeps its background for the SVG drawn next.
func TestPNGPlotIsTheSameWithoutItsWhiteBackground(t *testing.T) {
	for _, bg := range []color.Color{color.White, color.RGBA{R: 230, G: 240, B: 250, A: 255}} {
		for _, j := range timeseriesJobs(utilisationResult(2, 3)) {
			j.f.p.BackgroundColor = bg
			w := 7*vg.Inch + j.f.legendWidth()
			filled := vgimg.PngCanvas{Canvas: vgimg.New(w, j.height)}
			j.f.p.Draw(draw.New(filled))
			skipped := vgimg.PngCanvas{Canvas: vgimg.New(w, j.height)}
			drawPlot(j.f, skipped, draw.New(skipped))
			require.Equal(t, bg, j.f.p.BackgroundColor, "%s: the background is kept for the SVG", j.stem)
			a, b := filled.Image().(*image.RGBA), skipped.Image().(*image.RGBA)
			require.True(t, bytes.Equal(a.Pix, b.Pix), "%s on %v: every pixel the same", j.stem, bg)
		}
	}
}
