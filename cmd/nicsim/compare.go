package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/nicsim/nicsim/results"
)

// exitRegression is compare's exit code when a figure regressed; usage
// errors and unreadable or incomparable input exit exitUsage (2), so a CI
// step tells a regression from a broken invocation.
const exitRegression = 1

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", "[--threshold metric=pct]... [--all] [--format table|benchfmt] BASE NEW\n       nicsim compare --format benchfmt RESULT\n\nBASE and NEW are results.json files or the run folders holding them.\nExit status: 0 no regression, 1 a regression (or a missing figure), 2 bad usage or unreadable input.", stderr)
	var ths multiFlag
	fs.Var(&ths, "threshold", "accepted relative change of a metric in percent, e.g. latency_ns_p99=10 (repeatable); metrics: "+strings.Join(results.MetricNames(), ", "))
	all := fs.Bool("all", false, "list every compared figure, not only those that changed")
	format := fs.String("format", "table", "output: table, or benchfmt (Go benchmark format for benchstat)")
	files, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	thresholds, ok := parseThresholds("compare", ths, stderr)
	if !ok {
		return exitUsage
	}
	if *format != "table" && *format != "benchfmt" {
		fmt.Fprintf(stderr, "nicsim compare: --format %q is not one of table, benchfmt\n", *format)
		return exitUsage
	}
	if *format == "benchfmt" && len(files) == 1 {
		return writeBenchfmt(stdout, stderr, files[0])
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "nicsim compare: want BASE and NEW, got %d argument(s)\n", len(files))
		fs.Usage()
		return exitUsage
	}
	base, cur, ok := readPair(files[0], files[1], stderr)
	if !ok {
		return exitUsage
	}
	cmp, err := results.CompareResults(base, cur, thresholds)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim compare: %v\n", err)
		return exitUsage
	}
	if *format == "benchfmt" {
		for _, x := range []struct {
			r     *results.Result
			label string
		}{{base, "base"}, {cur, "new"}} {
			if err := results.WriteBenchfmt(stdout, x.r, x.label); err != nil {
				fmt.Fprintf(stderr, "nicsim compare: %v\n", err)
				return exitUsage
			}
		}
	} else {
		printComparison(stdout, cmp, *all)
	}
	fmt.Fprintf(stderr, "nicsim compare: %d regression(s), %d missing, %d improved, %d added\n", cmp.Regressions, cmp.Missing, cmp.Improved, cmp.Added)
	if cmp.Regressed() {
		return exitRegression
	}
	return exitOK
}

// writeBenchfmt writes one result in the Go benchmark format.
func writeBenchfmt(stdout, stderr io.Writer, file string) int {
	r, err := results.ReadResult(file)
	if err == nil {
		err = results.WriteBenchfmt(stdout, r, "")
	}
	if err != nil {
		fmt.Fprintf(stderr, "nicsim compare: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// readPair reads the base and the new result, warning when they are of
// different workloads.
func readPair(baseFile, newFile string, stderr io.Writer) (base, cur *results.Result, ok bool) {
	base, err := results.ReadResult(baseFile)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim compare: base: %v\n", err)
		return nil, nil, false
	}
	cur, err = results.ReadResult(newFile)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim compare: new: %v\n", err)
		return nil, nil, false
	}
	if base.Workload != cur.Workload {
		fmt.Fprintf(stderr, "nicsim compare: warning: comparing workload %q with workload %q\n", base.Workload, cur.Workload)
	}
	return base, cur, true
}

func printComparison(w io.Writer, c *results.Comparison, all bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "point\tgenerator\tmetric\tbase\tnew\tchange\tthreshold\tverdict\t")
	rows := 0
	for _, ch := range c.Changes {
		if !all && (ch.Verdict == results.Unchanged || ch.Verdict == results.Within && ch.ChangePct == 0) {
			continue
		}
		rows++
		gen := ch.Generator
		if gen == "" {
			gen = "-"
		}
		if ch.Verdict == results.Missing || ch.Verdict == results.Added {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\t%s\t\n", ch.Point, gen, ch.Metric, ch.Verdict)
			continue
		}
		th := fmt.Sprintf("%g%%", ch.ThresholdPct)
		if m, _ := results.MetricByName(ch.Metric); m.Better == results.Neutral {
			th, ch.Verdict = "-", "info"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", ch.Point, gen, ch.Metric,
			fmtVal(ch.Base), fmtVal(ch.New), fmtPct(ch.Base, ch.ChangePct), th, ch.Verdict)
	}
	if rows == 0 {
		fmt.Fprintln(tw, "(no figure changed)\t\t\t\t\t\t\t\t")
	}
	tw.Flush()
}

func fmtVal(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// fmtPct formats the change of a figure from base, in percent: "n/a
// (base 0)" for a change from 0, which has no percentage; scientific
// notation from a million percent on (a hand-edited 1e308 would print 300
// digits); two decimals otherwise.
func fmtPct(base, p float64) string {
	switch {
	case base == 0 && p != 0:
		return "n/a (base 0)"
	case math.IsNaN(p):
		return "n/a"
	case math.IsInf(p, 0) || math.Abs(p) >= 1e6:
		return fmt.Sprintf("%+.3g%%", p)
	}
	return fmt.Sprintf("%+.2f%%", p)
}
