package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// csvHeader names the columns of results.csv.
var csvHeader = []string{"point", "generator", "kind", "completed", "failed", "dropped", "throughput_mops", "goodput_gbps",
	"latency_ns_p50", "latency_ns_p99", "latency_ns_p999", "latency_ns_max", "latency_ns_mean",
	"pcie_up_utilization", "pcie_down_utilization", "mpt_hit_rate", "mtt_hit_rate", "window_ps", "stop_reason", "partial", "bound_by", "bound_by_utilization"}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func fmtUint(v uint64) string { return strconv.FormatUint(v, 10) }

// latencyCells are the p50, p99, p999, max and mean columns; empty when
// there is no sample (no quantile of an empty sample).
func latencyCells(l *Latency) []string {
	if l.Count == 0 {
		return []string{"", "", "", "", ""}
	}
	return []string{fmtFloat(l.P50), fmtFloat(l.P99), fmtFloat(l.P999), fmtFloat(l.Max), fmtFloat(l.Mean)}
}

// goodputCell is empty for a kind that moves no payload (it has a Figure).
func goodputCell(g *GenResult) string {
	if g.Figure != nil {
		return ""
	}
	return fmtFloat(g.GoodputGbps)
}

// genRow is the row of generator g of point p.
func genRow(p *PointResult, g *GenResult) []string {
	row := []string{p.Label, g.Name, g.Kind, fmtUint(g.Completed), fmtUint(g.Failed), fmtUint(g.Dropped),
		fmtFloat(g.ThroughputMops), goodputCell(g)}
	row = append(row, latencyCells(&g.LatencyNS)...)
	return append(row, fmtFloat(p.PCIe.UpUtilization), fmtFloat(p.PCIe.DownUtilization),
		fmtFloat(p.MTT.MPTHitRate), fmtFloat(p.MTT.MTTHitRate), fmtUint(g.WindowPS), p.StopReason, strconv.FormatBool(p.Partial),
		g.BoundBy.Resource, fmtFloat(g.BoundBy.Utilisation))
}

// partRow is the row of part pt of generator g: the columns that have no
// meaning for a part are empty.
func partRow(p *PointResult, g *GenResult, pt *PartResult) []string {
	row := []string{p.Label, pt.Name, pt.Kind, fmtUint(pt.Completed), "", "", fmtFloat(pt.ThroughputMops), ""}
	row = append(row, latencyCells(&pt.LatencyNS)...)
	return append(row, "", "", "", "", fmtUint(g.WindowPS), p.StopReason, strconv.FormatBool(p.Partial), "", "")
}

// WriteCSV writes results.csv: one row per point and generator, each
// followed by a row per part of the generator's operations.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for i := range r.Points {
		p := &r.Points[i]
		for j := range p.Generators {
			g := &p.Generators[j]
			if err := cw.Write(genRow(p, g)); err != nil {
				return err
			}
			for k := range g.Parts {
				if err := cw.Write(partRow(p, g, &g.Parts[k])); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
