package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// Exit codes of nicsim run and nicsim check.
const (
	exitOK          = 0
	exitFailed      = 1   // invalid workload file, or the run failed
	exitUsage       = 2   // bad flags or arguments
	exitInterrupted = 130 // Ctrl-C: results so far were written, marked partial
)

// meta is meta.json: how the run was made. Wall-clock figures live here
// and nowhere else, so results.json stays byte-identical for a file+seed.
type meta struct {
	Version     string   `json:"nicsim_version"`
	GoVersion   string   `json:"go_version"`
	File        string   `json:"file"`
	Args        []string `json:"args"`
	Seed        uint64   `json:"seed"`
	Partial     bool     `json:"partial"`
	StopReason  string   `json:"stop_reason"`
	StartedAt   string   `json:"started_at"`
	WallSeconds float64  `json:"wall_seconds"`
	Trace       string   `json:"trace,omitempty"`
	Profile     string   `json:"profile,omitempty"`
}

// config is config.json: the resolved configuration of every point after
// preset, overrides and sweep.
type config struct {
	Workload string                `json:"workload"`
	Seed     uint64                `json:"seed"`
	Sets     []string              `json:"sets,omitempty"`
	Sweep    []workloads.SweepAxis `json:"sweep,omitempty"`
	Labels   []string              `json:"labels,omitempty"` // sweep point of each entry of points
	Points   []*workloads.Workload `json:"points"`           // each one a valid workload file in JSON
	Kinds    []string              `json:"kinds"`
	Presets  []string              `json:"presets"`
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// resultsJSON is the exact bytes of results.json.
func resultsJSON(r *results.Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	err := enc.Encode(r)
	return b.Bytes(), err
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

var csvHeader = []string{"point", "generator", "kind", "completed", "failed", "dropped", "throughput_mops", "goodput_gbps",
	"latency_ns_p50", "latency_ns_p99", "latency_ns_p999", "latency_ns_max", "latency_ns_mean",
	"pcie_up_utilization", "pcie_down_utilization", "mpt_hit_rate", "mtt_hit_rate", "window_ps", "stop_reason", "partial"}

// writeCSV writes one row per point and generator.
func writeCSV(w io.Writer, r *results.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, p := range r.Points {
		for _, g := range p.Generators {
			u := func(v uint64) string { return strconv.FormatUint(v, 10) }
			if err := cw.Write([]string{p.Label, g.Name, g.Kind, u(g.Completed), u(g.Failed), u(g.Dropped),
				fmtFloat(g.ThroughputMops), fmtFloat(g.GoodputGbps),
				fmtFloat(g.LatencyNS.P50), fmtFloat(g.LatencyNS.P99), fmtFloat(g.LatencyNS.P999), fmtFloat(g.LatencyNS.Max),
				fmtFloat(g.LatencyNS.Mean), fmtFloat(p.PCIe.UpUtilization), fmtFloat(p.PCIe.DownUtilization),
				fmtFloat(p.MTT.MPTHitRate), fmtFloat(p.MTT.MTTHitRate), u(g.WindowPS), p.StopReason,
				strconv.FormatBool(p.Partial)}); err != nil {
				return err
			}
			for _, pt := range g.Parts {
				if err := cw.Write([]string{p.Label, pt.Name, pt.Kind, u(pt.Completed), "", "", fmtFloat(pt.ThroughputMops), "",
					fmtFloat(pt.LatencyNS.P50), fmtFloat(pt.LatencyNS.P99), fmtFloat(pt.LatencyNS.P999), fmtFloat(pt.LatencyNS.Max),
					fmtFloat(pt.LatencyNS.Mean), "", "", "", "", u(g.WindowPS), p.StopReason, strconv.FormatBool(p.Partial)}); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeOutputs writes results.json, results.csv, config.json and meta.json
// into dir.
func writeOutputs(dir string, r *results.Result, cfg config, m meta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := resultsJSON(r)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return err
	}
	var c bytes.Buffer
	if err := writeCSV(&c, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), c.Bytes(), 0o644); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "config.json"), cfg); err != nil {
		return err
	}
	m.GoVersion = runtime.Version()
	return writeJSON(filepath.Join(dir, "meta.json"), m)
}

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
	cols := []string{"generator", "kind", "ops", "Mops/s", "Gb/s", "p50 ns", "p99 ns", "p999 ns", "max ns",
		"failed", "PCIe up", "PCIe down", "MPT hit", "MTT hit"}
	if sweep {
		cols = append([]string{"point"}, cols...)
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	for _, p := range r.Points {
		for _, g := range p.Generators {
			row := []string{g.Name, g.Kind, strconv.FormatUint(g.Completed, 10),
				fmt.Sprintf("%.3f", g.ThroughputMops), fmt.Sprintf("%.3f", g.GoodputGbps),
				fmt.Sprintf("%.1f", g.LatencyNS.P50), fmt.Sprintf("%.1f", g.LatencyNS.P99),
				fmt.Sprintf("%.1f", g.LatencyNS.P999), fmt.Sprintf("%.1f", g.LatencyNS.Max),
				strconv.FormatUint(g.Failed, 10), pct(p.PCIe.UpUtilization), pct(p.PCIe.DownUtilization),
				hit(p.MTT.MPTLookups, p.MTT.MPTHitRate), hit(p.MTT.MTTLookups, p.MTT.MTTHitRate)}
			if sweep {
				row = append([]string{p.Label}, row...)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			for _, pt := range g.Parts {
				row := []string{pt.Name, pt.Kind, strconv.FormatUint(pt.Completed, 10), fmt.Sprintf("%.3f", pt.ThroughputMops), "",
					fmt.Sprintf("%.1f", pt.LatencyNS.P50), fmt.Sprintf("%.1f", pt.LatencyNS.P99),
					fmt.Sprintf("%.1f", pt.LatencyNS.P999), fmt.Sprintf("%.1f", pt.LatencyNS.Max), "", "", "", "", ""}
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
