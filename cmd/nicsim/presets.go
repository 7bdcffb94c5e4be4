package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nicsim/nicsim/workloads"
)

func runPresets(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("presets", "[--format table|json] [NAME...]", stderr)
	format := fs.String("format", "table", "output format: table or json")
	names, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(stderr, "nicsim presets: --format %q must be table or json\n", *format)
		return exitUsage
	}
	var ps []workloads.Preset
	if len(names) == 0 {
		ps = workloads.Presets()
	}
	for _, n := range names {
		p, ok := workloads.PresetByName(n)
		if !ok {
			fmt.Fprintf(stderr, "nicsim presets: unknown preset %q; known presets: %s\n", n, strings.Join(workloads.PresetNames(), ", "))
			return exitUsage
		}
		ps = append(ps, p)
	}
	if *format == "json" {
		type row struct {
			Name    string                  `json:"name"`
			Summary string                  `json:"summary"`
			Values  []workloads.PresetValue `json:"values"`
		}
		var rows []row
		for _, p := range ps {
			rows = append(rows, row{p.Name, p.Summary, p.Values()})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return exitFailed
		}
		return exitOK
	}
	for i, p := range ps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s: %s\n", p.Name, p.Summary)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  key\tvalue\tsource")
		for _, v := range p.Values() {
			fmt.Fprintf(tw, "  adapter.%s\t%s\t%s\n", v.Key, v.Value, v.Source)
		}
		tw.Flush()
	}
	return exitOK
}
