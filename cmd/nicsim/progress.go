package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay is how long a run goes before a progress bar appears.
const progressDelay = 2 * time.Second

// progressLineEvery is how often a progress line is printed when stderr is
// not a terminal (a batch job's log).
var progressLineEvery = 5 * time.Second

// progress shows a bar on stderr for runs that last longer than
// progressDelay when stderr is a terminal, and otherwise a line every
// progressLineEvery.
type progress struct {
	w        io.Writer
	on       bool
	start    time.Time
	lastLine time.Time
	desc     string
	bar      *progressbar.ProgressBar
}

func newProgress(stderr io.Writer, desc string) *progress {
	f, ok := stderr.(*os.File)
	now := time.Now()
	return &progress{w: stderr, on: ok && term.IsTerminal(int(f.Fd())), start: now, lastLine: now, desc: desc}
}

// points reports done of total sweep points.
func (p *progress) points(done, total int) {
	if !p.on {
		p.line(fmt.Sprintf("%d of %d points done", done, total), float64(done)/float64(total))
		return
	}
	p.set(float64(done) / float64(total))
}

// line prints what, the elapsed time and an estimate of the time left, at
// most every progressLineEvery.
func (p *progress) line(what string, frac float64) {
	now := time.Now()
	if now.Sub(p.lastLine) < progressLineEvery {
		return
	}
	p.lastLine = now
	el := now.Sub(p.start).Round(time.Second)
	left := "?"
	if frac > 0 {
		left = (time.Duration(float64(now.Sub(p.start))/frac) - now.Sub(p.start)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "nicsim: %s: %s (%.0f%%), %s elapsed, about %s left\n", p.desc, what, 100*frac, el, left)
}

// set reports the fraction done (0..1).
func (p *progress) set(frac float64) {
	if !p.on {
		p.line("progress", frac)
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < progressDelay {
			return
		}
		p.bar = progressbar.NewOptions(1000, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.desc),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(40), progressbar.OptionSetPredictTime(false))
	}
	_ = p.bar.Set(int(frac * 1000))
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}
