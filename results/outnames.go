package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The names nicsim writes in an output folder, kept here, in one place:
// the writers take their names from here (files.go, store.go, plot.go,
// tsplot.go, the profiles of nicsim run), and StageOutDir refuses a folder
// holding any other name, since putting a folder in place replaces it
// whole.
const (
	CPUProfile = "cpu.pprof" // nicsim run --profile cpu (pkg/profile's name)
	MemProfile = "mem.pprof" // nicsim run --profile mem

	plotCDFPrefix = "latency_cdf-" // latency_cdf-<generator>: a generator's latency CDF
	plotVersus    = "-vs-"         // <metric>-vs-<axis>: a metric against a sweep axis

	plotTSThroughput  = "timeseries-throughput"
	plotTSLatency     = "timeseries-latency_p99"
	plotTSUtilisation = "timeseries-utilisation"
)

// outputFiles are the files of fixed name of an output folder.
var outputFiles = []string{ResultsJSON, ResultsCSV, TimeseriesCSV, ConfigJSON, MetaJSON, CPUProfile, MemProfile}

// plotFormats are the formats, and file name extensions, of every plot.
var plotFormats = []string{"png", "svg"}

// isOutputName reports whether nicsim writes an entry named name (a
// folder when dir) in an output folder.
func isOutputName(name string, dir bool) bool {
	if dir {
		return name == PointsDir
	}
	return slices.Contains(outputFiles, name) || isPlotName(name)
}

// isPlotName reports whether name is that of a plot WritePlots or
// WriteTimeseriesPlots writes.
func isPlotName(name string) bool {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || !slices.Contains(plotFormats, name[i+1:]) {
		return false
	}
	stem := name[:i]
	if slices.Contains([]string{plotTSThroughput, plotTSLatency, plotTSUtilisation}, stem) || strings.HasPrefix(stem, plotCDFPrefix) {
		return true
	}
	m, _, ok := strings.Cut(stem, plotVersus)
	return ok && slices.Contains(PlotMetricNames(), m)
}

// isPointName reports whether nicsim writes an entry named name in a
// points folder: <index>.json, or <index>.json.tmp while it is written
// (PointStore.Put).
func isPointName(name string, dir bool) bool {
	k, ok := strings.CutSuffix(strings.TrimSuffix(name, ".tmp"), ".json")
	_, err := strconv.ParseUint(k, 10, 31)
	return !dir && ok && err == nil
}

// foreignEntry is the first entry of output folder dir, or of its points
// folder, that nicsim does not write there, as a path under dir ("" when
// every entry is one of nicsim's).
func foreignEntry(dir string) (string, error) {
	if name, err := foreignIn(dir, isOutputName); name != "" || err != nil {
		return name, err
	}
	if st, err := os.Stat(filepath.Join(dir, PointsDir)); err != nil || !st.IsDir() {
		return "", nil
	}
	name, err := foreignIn(filepath.Join(dir, PointsDir), isPointName)
	if name != "" {
		name = filepath.Join(PointsDir, name)
	}
	return name, err
}

// foreignIn is the first entry of dir (in name order) that ours refuses.
func foreignIn(dir string, ours func(name string, dir bool) bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("output folder %s: %w", dir, err)
	}
	for _, e := range entries {
		if !ours(e.Name(), e.IsDir()) {
			if e.IsDir() {
				return e.Name() + string(filepath.Separator), nil
			}
			return e.Name(), nil
		}
	}
	return "", nil
}
