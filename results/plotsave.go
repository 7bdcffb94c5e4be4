package results

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plotJob is a figure to save as stem.png and stem.svg, height tall.
type plotJob struct {
	f      *figure
	stem   string
	height vg.Length
}

// saveAll saves the figures of jobs into dir, as many at once as the
// process has processors, and returns the files written in the jobs'
// order and the first job's error. Each figure is drawn by one goroutine
// only: drawing a plot sets its axes' ranges. Every file is the same
// whatever the order they are drawn in.
func saveAll(dir string, jobs []plotJob) ([]string, error) {
	type saved struct {
		files []string
		err   error
	}
	out := make([]saved, len(jobs))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range jobs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			j := &jobs[i]
			out[i].files, out[i].err = save(j.f, dir, j.stem, j.height)
		})
	}
	wg.Wait()
	var files []string
	var err error
	for _, s := range out {
		files = append(files, s.files...)
		if err == nil {
			err = s.err
		}
	}
	return files, err
}

// save writes f as stem.png and stem.svg in dir: the data on the left,
// the legend to the right, height tall.
func save(f *figure, dir, stem string, height vg.Length) ([]string, error) {
	lw := f.legendWidth()
	var files []string
	for _, ext := range plotFormats {
		name := filepath.Join(dir, stem+"."+ext)
		if err := saveFormat(f, name, ext, 7*vg.Inch+lw, height, lw); err != nil {
			return files, fmt.Errorf("plot %s: %w", name, err)
		}
		files = append(files, name)
	}
	return files, nil
}

func saveFormat(f *figure, name, format string, w, h, lw vg.Length) error {
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	drawPlot(f, c, draw.Crop(dc, 0, -lw, 0, 0))
	f.legend.Draw(draw.Crop(dc, w-lw+0.1*vg.Inch, 0, 0, -0.4*vg.Inch))
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	err = writeCanvas(out, c)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// drawPlot draws f's plot on dc, part of canvas c. A PNG canvas starts
// white (vgimg), so the plot's own white background, which the rasteriser
// would paint over every pixel of it, is left out there: the pixels are the
// same (TestPNGPlotIsTheSameWithoutItsWhiteBackground). An SVG has no
// background of its own and keeps it.
func drawPlot(f *figure, c vg.CanvasWriterTo, dc draw.Canvas) {
	bg := f.p.BackgroundColor
	if _, png := c.(vgimg.PngCanvas); png && bg == color.White {
		f.p.BackgroundColor = nil
		defer func() { f.p.BackgroundColor = bg }()
	}
	f.p.Draw(dc)
}

// writeCanvas writes c to w: a PNG canvas by writePNG.
func writeCanvas(w io.Writer, c vg.CanvasWriterTo) error {
	if pc, ok := c.(vgimg.PngCanvas); ok {
		return writePNG(w, pc.Image())
	}
	_, err := c.WriteTo(w)
	return err
}
