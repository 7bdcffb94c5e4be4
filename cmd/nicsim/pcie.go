package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// pcieCmd is one `nicsim pcie`: the preset, the link, the stream directions
// and sizes, and the output format.
type pcieCmd struct {
	preset string
	spec   pcie.Spec
	clock  sim.ClockDomain // the NIC clock the DMA engine runs on
	dirs   []pcie.Direction
	sizes  []uint64
	ideal  bool
	format string
}

// pcieDefaultPreset is the device `nicsim pcie` measures unless told:
// pcie-bench's NFP-6000 on the E5 host (docs/sources.md 1).
const pcieDefaultPreset = "nfp6000-e5"

// pcieSizesMax bounds --sizes: each size is a simulated stream.
const pcieSizesMax = 64

// pcieColumns are the columns of the table and the CSV. bound_by is the
// busiest meter of the stream (the resource that binds it), bound_util its
// utilisation.
var pcieColumns = []string{"direction", "transfer_bytes", "effective_gbps", "model_gbps", "error_pct",
	"read_latency_ns_mean", "read_latency_ns_p99", "up_util", "down_util", "up_tlps", "down_tlps", "tag_stalls", "credit_stalls",
	"bound_by", "bound_util"}

func runPCIe(args []string, stdout, stderr io.Writer) int {
	c, code, ok := parsePCIe(args, stderr)
	if !ok {
		return code
	}
	var rows [][]string
	for _, d := range c.dirs {
		for _, sz := range c.sizes {
			row, err := pcieRow(c.spec, c.clock, d, sz)
			if err != nil {
				fmt.Fprintf(stderr, "nicsim pcie: %s %d B: %v\n", d, sz, err)
				return 1
			}
			rows = append(rows, row)
		}
	}
	if c.format == "csv" {
		fmt.Fprintln(stdout, strings.Join(pcieColumns, ","))
		for _, r := range rows {
			fmt.Fprintln(stdout, strings.Join(r, ","))
		}
		return 0
	}
	return c.printTable(stdout, stderr, rows)
}

// parsePCIe parses and checks the flags; false when the command stops
// (help or a usage error, with its exit code). The link starts as the
// preset's; the link flags given override it.
func parsePCIe(args []string, stderr io.Writer) (*pcieCmd, int, bool) {
	fs := newFlagSet("pcie", "[--preset NAME] [--gen N] [--lanes N] [--mps B] [--mrrs B] [--sizes 64,128,...] [--dir read|write|rdwr|all] [--ideal] [--format table|csv]", stderr)
	c := &pcieCmd{}
	fs.StringVar(&c.preset, "preset", pcieDefaultPreset, "adapter preset whose link, host and DMA engine to measure (nicsim presets)")
	link := newPCIeLinkFlags(fs)
	sizes := fs.String("sizes", "64,128,256,512,1024,2048,4096", fmt.Sprintf("comma-separated transfer sizes in bytes (1..16777216), each once, at most %d", pcieSizesMax))
	dir := fs.String("dir", "all", "stream direction: read, write, rdwr or all")
	fs.BoolVar(&c.ideal, "ideal", false, "no latency, tag, credit or engine limits; infinite host memory bandwidth")
	fs.StringVar(&c.format, "format", "table", "output format: table or csv")
	if code, ok := parseFlags(fs, args); !ok {
		return nil, code, false
	}
	if !noArgs("pcie", fs.Args(), stderr) {
		return nil, 2, false
	}
	if err := c.configure(fs, link, *dir, *sizes); err != nil {
		fmt.Fprintf(stderr, "nicsim pcie: %v\n", err)
		return nil, 2, false
	}
	return c, 0, true
}

// configure checks the parsed flags and sets c's link, clock, directions
// and sizes from them.
func (c *pcieCmd) configure(fs *flag.FlagSet, link *pcieLinkFlags, dir, sizes string) error {
	p, ok := workloads.PresetByName(c.preset)
	if !ok {
		return fmt.Errorf("--preset %q is not a preset (%s)", c.preset, strings.Join(workloads.PresetNames(), ", "))
	}
	if err := link.check(); err != nil {
		return err
	}
	if c.format != "table" && c.format != "csv" {
		return fmt.Errorf("--format %q must be table or csv", c.format)
	}
	var err error
	if c.dirs, err = parseDirections(dir); err != nil {
		return err
	}
	if c.sizes, err = parseSizes(sizes); err != nil {
		return err
	}
	c.spec = link.apply(fs, p.Adapter.PCIe)
	c.clock = sim.ClockDomain{Name: "NIC.Clock", Period: sim.Tick(p.Adapter.NIC.ClockPeriodPS)}
	if c.ideal {
		c.spec = pcie.IdealSpec(c.spec)
	}
	return c.spec.Validate()
}

// pcieLinkFlags are the flags that override the preset's link. Their
// defaults, shown in the help, are the default preset's.
type pcieLinkFlags struct {
	gen, lanes, mps, mrrs, rcb, tags *int
	split                            *string
}

func newPCIeLinkFlags(fs *flag.FlagSet) *pcieLinkFlags {
	defPreset, _ := workloads.PresetByName(pcieDefaultPreset)
	def := defPreset.Adapter.PCIe
	return &pcieLinkFlags{
		gen:   fs.Int("gen", def.Gen, "PCIe generation (1..5)"),
		lanes: fs.Int("lanes", def.Lanes, "link width (1, 2, 4, 8, 16)"),
		mps:   fs.Int("mps", def.MPSBytes, "Max_Payload_Size in bytes (128..4096, power of two)"),
		mrrs:  fs.Int("mrrs", def.MRRSBytes, "Max_Read_Request_Size in bytes (128..4096, power of two)"),
		rcb:   fs.Int("rcb", def.RCBBytes, "read completion boundary in bytes (64 or 128)"),
		split: fs.String("split", def.CompletionSplit, "completion split: mps or rcb"),
		tags:  fs.Int("tags", def.TagsMax, "outstanding read tags (1..65536)"),
	}
}

// check says which flag is out of its range, if any.
func (l *pcieLinkFlags) check() error {
	switch {
	case *l.gen < 1 || *l.gen > 5:
		return fmt.Errorf("--gen %d is out of range 1..5", *l.gen)
	case *l.lanes != 1 && *l.lanes != 2 && *l.lanes != 4 && *l.lanes != 8 && *l.lanes != 16:
		return fmt.Errorf("--lanes %d must be one of 1, 2, 4, 8, 16", *l.lanes)
	case !pow2In(*l.mps, 128, 4096):
		return fmt.Errorf("--mps %d must be a power of two in 128..4096", *l.mps)
	case !pow2In(*l.mrrs, 128, 4096):
		return fmt.Errorf("--mrrs %d must be a power of two in 128..4096", *l.mrrs)
	case *l.rcb != 64 && *l.rcb != 128:
		return fmt.Errorf("--rcb %d must be 64 or 128", *l.rcb)
	case *l.split != pcie.SplitMPS && *l.split != pcie.SplitRCB:
		return fmt.Errorf("--split %q must be mps or rcb", *l.split)
	case *l.tags < 1 || *l.tags > pcie.TagsLimit:
		return fmt.Errorf("--tags %d is out of range 1..%d", *l.tags, pcie.TagsLimit)
	}
	return nil
}

// apply is the preset's link spec with the flags given on the command line
// in place of its fields.
func (l *pcieLinkFlags) apply(fs *flag.FlagSet, spec pcie.Spec) pcie.Spec {
	ints := map[string][2]*int{"gen": {&spec.Gen, l.gen}, "lanes": {&spec.Lanes, l.lanes}, "mps": {&spec.MPSBytes, l.mps},
		"mrrs": {&spec.MRRSBytes, l.mrrs}, "rcb": {&spec.RCBBytes, l.rcb}, "tags": {&spec.TagsMax, l.tags}}
	fs.Visit(func(f *flag.Flag) {
		if p, ok := ints[f.Name]; ok {
			*p[0] = *p[1]
		} else if f.Name == "split" {
			spec.CompletionSplit = *l.split
		}
	})
	if spec.HostNPHCredits != 0 && spec.HostNPHCredits < spec.TagsMax {
		spec.HostNPHCredits = spec.TagsMax // so that --tags, not NPH credits, limits reads
	}
	return spec
}

// parseDirections parses --dir: read, write, rdwr or all of them.
func parseDirections(s string) ([]pcie.Direction, error) {
	if s == "all" {
		return []pcie.Direction{pcie.DirRead, pcie.DirWrite, pcie.DirRdWr}, nil
	}
	d, err := pcie.ParseDirection(s)
	if err != nil {
		return nil, fmt.Errorf("--dir %q must be read, write, rdwr or all", s)
	}
	return []pcie.Direction{d}, nil
}

// parseSizes parses --sizes: at most pcieSizesMax sizes of 1..16777216
// bytes, none twice (it would print the same row again).
func parseSizes(s string) ([]uint64, error) {
	if n := strings.Count(s, ",") + 1; n > pcieSizesMax {
		return nil, fmt.Errorf("--sizes: %d sizes, at most %d", n, pcieSizesMax)
	}
	var szs []uint64
	seen := map[uint64]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || v < 1 || v > 1<<24 {
			return nil, fmt.Errorf("--sizes: %q is not a size in 1..16777216 bytes", f)
		}
		if seen[v] {
			return nil, fmt.Errorf("--sizes: %d is given twice; each size is one row", v)
		}
		seen[v] = true
		szs = append(szs, v)
	}
	return szs, nil
}

// pcieRow runs one stream of direction d and transfer size sz and is its
// row: the measured goodput next to the byte-count model's, and the
// resource that binds it.
func pcieRow(spec pcie.Spec, clock sim.ClockDomain, d pcie.Direction, sz uint64) ([]string, error) {
	r, err := pcie.RunStream(spec, clock, pcie.DefaultStreamConfig(d, sz, spec))
	if err != nil {
		return nil, err
	}
	m := pcie.ByteModelGoodputGbps(spec, d, sz)
	return []string{string(d), strconv.FormatUint(sz, 10),
		f3(r.EffectiveGbps), f3(m), fmt.Sprintf("%.2f", 100*(r.EffectiveGbps/m-1)),
		fmt.Sprintf("%.1f", r.ReadLatencyNS.Mean), fmt.Sprintf("%.1f", r.ReadLatencyNS.P99),
		f3(r.UpUtilization), f3(r.DownUtilization),
		strconv.FormatUint(r.UpTLPs, 10), strconv.FormatUint(r.DownTLPs, 10),
		strconv.FormatUint(r.Stats.TagStalls, 10),
		strconv.FormatUint(r.Stats.Up.CreditStalls+r.Stats.Down.CreditStalls, 10),
		r.BoundBy.Name, f3(r.BoundBy.Utilisation)}, nil
}

// printTable prints the link, the rows as a table and the unloaded read
// latency fit.
func (c *pcieCmd) printTable(stdout, stderr io.Writer, rows [][]string) int {
	spec := c.spec
	mode := "realistic"
	if c.ideal {
		mode = "ideal"
	}
	fmt.Fprintf(stdout, "preset %s: PCIe gen%d x%d, MPS %d, MRRS %d, RCB %d, split %s, tags %d, DMA engine at %.1f MHz, %s; raw %.3f Gb/s per direction\n",
		c.preset, spec.Gen, spec.Lanes, spec.MPSBytes, spec.MRRSBytes, spec.RCBBytes, spec.CompletionSplit, spec.TagsMax,
		c.clock.FrequencyMHz(), mode, pcie.RawGbps(spec.Gen, spec.Lanes))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(pcieColumns, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	if fit, ok, err := unloadedReadFit(spec, c.clock, c.dirs, c.sizes, c.ideal); err != nil {
		fmt.Fprintf(stderr, "nicsim pcie: %v\n", err)
		return 1
	} else if ok {
		fmt.Fprintln(stdout, fit)
	}
	return 0
}

// unloadedReadFit measures one outstanding DMA read of every size (no
// queueing) and fits its median latency = fixed + per-byte x size by least
// squares,
// next to the fit of the measured E5-class hosts in docs/sources.md 1.1. It
// needs reads among the directions, two distinct sizes, and latency (not
// --ideal).
func unloadedReadFit(spec pcie.Spec, clock sim.ClockDomain, dirs []pcie.Direction, sizes []uint64, ideal bool) (string, bool, error) {
	reads := false
	for _, d := range dirs {
		reads = reads || d == pcie.DirRead || d == pcie.DirRdWr
	}
	distinct := map[uint64]bool{}
	for _, s := range sizes {
		distinct[s] = true
	}
	if !reads || ideal || len(distinct) < 2 {
		return "", false, nil
	}
	var xs, ys []float64
	lo, hi := sizes[0], sizes[0]
	for _, sz := range sizes {
		r, err := pcie.RunStream(spec, clock, pcie.StreamConfig{Dir: pcie.DirRead, SizeBytes: sz, Outstanding: 1, WarmupTransfers: 2, MeasureTransfers: 200})
		if err != nil {
			return "", false, fmt.Errorf("read %d B, one outstanding: %w", sz, err)
		}
		xs = append(xs, float64(sz))
		ys = append(ys, r.ReadLatencyNS.P50)
		lo, hi = min(lo, sz), max(hi, sz)
	}
	fixed, perByte := stat.LinearRegression(xs, ys, nil, false)
	r2 := stat.RSquared(xs, ys, nil, fixed, perByte)
	return fmt.Sprintf("unloaded DMA read latency (one outstanding, median, %d..%d B): %.1f ns + %.3f ns/B (R^2 %.4f); %s",
		lo, hi, fixed, perByte, r2, measuredReadFit(sizes)), true, nil
}

// e5ReadMedianNS is the E5-2620v3 column of docs/sources.md 1.1: the median
// latency of one DMA read by size.
var e5ReadMedianNS = map[uint64]float64{8: 533, 64: 546, 256: 626, 512: 706, 1024: 853, 2048: 1133}

// measuredReadFit is the fit of the measured E5 medians over the same
// sizes when the table has them all, else the section's overall fit.
func measuredReadFit(sizes []uint64) string {
	var xs, ys []float64
	for _, sz := range sizes {
		ns, ok := e5ReadMedianNS[sz]
		if !ok {
			return "measured E5-class hosts (docs/sources.md 1.1): about 525 ns + 0.30 ns/B"
		}
		xs, ys = append(xs, float64(sz)), append(ys, ns)
	}
	fixed, perByte := stat.LinearRegression(xs, ys, nil, false)
	return fmt.Sprintf("measured E5-2620v3 (docs/sources.md 1.1), same sizes: %.1f ns + %.3f ns/B", fixed, perByte)
}

func pow2In(v, lo, hi int) bool { return v >= lo && v <= hi && v&(v-1) == 0 }

func f3(v float64) string { return fmt.Sprintf("%.3f", v) }
