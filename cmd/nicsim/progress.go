package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay is how long a run goes before a progress bar appears.
const progressDelay = 2 * time.Second

// progress shows a bar on stderr for runs that last longer than
// progressDelay, and only when stderr is a terminal.
type progress struct {
	w     io.Writer
	on    bool
	start time.Time
	desc  string
	bar   *progressbar.ProgressBar
}

func newProgress(stderr io.Writer, desc string) *progress {
	f, ok := stderr.(*os.File)
	return &progress{w: stderr, on: ok && term.IsTerminal(int(f.Fd())), start: time.Now(), desc: desc}
}

// set reports the fraction done (0..1).
func (p *progress) set(frac float64) {
	if !p.on {
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
