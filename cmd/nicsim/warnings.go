package main

import (
	"fmt"
	"io"

	"github.com/nicsim/nicsim/results"
)

// printWarnings writes every point's warnings to w, naming the point.
func printWarnings(w io.Writer, cmd string, r *results.Result) {
	for _, p := range r.Points {
		for _, m := range p.Warnings {
			if p.Label != "" {
				fmt.Fprintf(w, "nicsim %s: warning: %s: %s\n", cmd, p.Label, m)
			} else {
				fmt.Fprintf(w, "nicsim %s: warning: %s\n", cmd, m)
			}
		}
	}
}
