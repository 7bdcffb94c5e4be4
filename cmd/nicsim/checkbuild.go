package main

import (
	"fmt"
	"io"

	"github.com/nicsim/nicsim/sim"
)

// A check build runs events of one time and priority last scheduled first
// (go build -tags reverseties; docs/accuracy.md, section 8). Its
// figures show how far the model's depend on that order; they are not
// the model's own, so every command says so, regress never writes a
// baseline from them and validate neither its report nor its verdicts.

// buildNote is what `nicsim version` adds for a check build.
func buildNote() string {
	if sim.SameTimeReversed {
		return " (same-time order reversed: -tags reverseties)"
	}
	return ""
}

// warnCheckBuild warns, in a check build, before a command runs.
func warnCheckBuild(w io.Writer) {
	if sim.SameTimeReversed {
		fmt.Fprintln(w, "nicsim: warning: same-time events run last scheduled first (a check build, -tags reverseties): compare its figures with an ordinary build's, do not report them")
	}
}

// refuseCheckBuildWrite reports, in a check build, that command cmd writes
// no records (what: "baselines", "verdicts") and returns true: the caller
// stops with exitUsage.
func refuseCheckBuildWrite(w io.Writer, cmd, what string) bool {
	if !sim.SameTimeReversed {
		return false
	}
	fmt.Fprintf(w, "nicsim %s: this binary runs same-time events in reverse order (built with -tags reverseties, a check build): it compares %s and never writes them\n", cmd, what)
	return true
}
