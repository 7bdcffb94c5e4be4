package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// printSummary prints the summary table of a run.
func printSummary(w io.Writer, file string, f *workloads.File, r *results.Result) {
	w0 := f.Points[0]
	fmt.Fprintf(w, "%s: workload %q, adapter %s (PCIe gen%d x%d), seed %d",
		file, r.Workload, w0.Adapter.Preset, w0.Adapter.PCIe.Gen, w0.Adapter.PCIe.Lanes, r.Seed)
	if len(r.Points) > 1 || len(f.Sweep) > 0 {
		fmt.Fprintf(w, ", %d of %d sweep points", len(r.Points), len(f.Points))
	}
	if r.Partial {
		fmt.Fprint(w, "  ** PARTIAL **")
	}
	fmt.Fprintln(w)
	sweep := len(f.Sweep) > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := []string{"generator", "kind", "ops", "Mops/s", "Gb/s", "own rate", "p50 ns", "p99 ns", "p999 ns", "max ns",
		"failed", "PCIe up", "PCIe down", "MPT hit", "MTT hit", "bound by"}
	if sweep {
		cols = append([]string{"point"}, cols...)
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	for _, p := range r.Points {
		for _, g := range p.Generators {
			row := []string{g.Name, g.Kind, strconv.FormatUint(g.Completed, 10),
				fmt.Sprintf("%.3f", g.ThroughputMops), goodput(&g), figure(&g.Figure)}
			row = append(row, latencies(&g.LatencyNS)...)
			row = append(row, strconv.FormatUint(g.Failed, 10), pct(p.PCIe.UpUtilization), pct(p.PCIe.DownUtilization),
				hit(p.MTT.MPTLookups, p.MTT.MPTHitRate), hit(p.MTT.MTTLookups, p.MTT.MTTHitRate), g.BoundBy.String())
			if sweep {
				row = append([]string{p.Label}, row...)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			for _, pt := range g.Parts {
				row := []string{pt.Name, pt.Kind, strconv.FormatUint(pt.Completed, 10), fmt.Sprintf("%.3f", pt.ThroughputMops), "", ""}
				row = append(row, latencies(&pt.LatencyNS)...)
				row = append(row, "", "", "", "", "", "")
				if sweep {
					row = append([]string{p.Label}, row...)
				}
				fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			}
		}
	}
	tw.Flush()
	for _, p := range r.Points {
		for _, g := range p.Generators {
			for _, fr := range g.Failures {
				fmt.Fprintf(w, "  %s%s: %d failed: %s\n", labelPrefix(p.Label), g.Name, fr.Count, fr.Reason)
			}
			if g.Dropped > 0 {
				fmt.Fprintf(w, "  %s%s: %d arrivals dropped (backlog full)\n", labelPrefix(p.Label), g.Name, g.Dropped)
			}
		}
		if p.Partial {
			fmt.Fprintf(w, "  %sstopped early (%s): figures cover %.3f us of measured time\n", labelPrefix(p.Label), p.StopReason, float64(p.WindowPS)/1e6)
		}
	}
}

// latencies are the p50, p99, p999 and max cells: "-" without a sample.
func latencies(l *results.Latency) []string {
	if l.Count == 0 {
		return []string{"-", "-", "-", "-"}
	}
	return []string{fmt.Sprintf("%.1f", l.P50), fmt.Sprintf("%.1f", l.P99), fmt.Sprintf("%.1f", l.P999), fmt.Sprintf("%.1f", l.Max)}
}

// goodput is the Gb/s cell: "-" for a kind that moves no payload.
func goodput(g *results.GenResult) string {
	if !g.MovesPayload {
		return "-"
	}
	return fmt.Sprintf("%.3f", g.GoodputGbps)
}

// figure is the kind's own rate with its unit, or "".
func figure(f *results.Figure) string {
	if f.Name == "" {
		return ""
	}
	return fmt.Sprintf("%.3f %s", f.Value, f.Unit)
}

func labelPrefix(l string) string {
	if l == "" {
		return ""
	}
	return "[" + l + "] "
}

func hit(lookups uint64, rate float64) string {
	if lookups == 0 {
		return "-"
	}
	return pct(rate)
}
