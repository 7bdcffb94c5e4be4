package workloads

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An empty sweep, an empty list and a list over the limit each get an
// error that says what is wrong, never a blank line.
func TestEmptyOrOversizedSweepGivesAClearError(t *testing.T) {
	msg := loadErr(t, minimal+"sweep: {}\n")
	require.Equal(t, "w.yaml:7:8: sweep: an empty mapping; give at least one key path with its values (regions.data.pages: [512, 4096]), or leave sweep out", msg)
	require.Equal(t, "w.yaml:7:19: sweep.run.seed: an empty list; give 1..64 values", loadErr(t, minimal+"sweep: {run.seed: []}\n"))
	vals := make([]string, SweepValuesMax+1)
	for i := range vals {
		vals[i] = fmt.Sprint(i + 1)
	}
	require.Equal(t, "w.yaml:8:13: sweep.run.seed: a list of 65 values; at most 64",
		loadErr(t, minimal+"sweep:\n  run.seed: ["+strings.Join(vals, ", ")+"]\n"))
	require.Equal(t, "w.yaml:8:13: sweep.run.seed: expected a list of 1..64 values, found number 5", loadErr(t, minimal+"sweep:\n  run.seed: 5\n"))
	require.NotEmpty(t, strings.TrimSpace(loadErr(t, minimal+"sweep: {}\n", "sweep={}")))
}

// A sweep whose points repeat can never be merged (points are known by
// their label): a value given twice in one list, or a zipped point that
// repeats another, is refused at the repeat.
func TestDuplicateSweepValuesRefused(t *testing.T) {
	require.Equal(t, "w.yaml:8:37: sweep.generators.reads.outstanding: 4 is given twice (first at 8:34); a sweep's points must differ",
		loadErr(t, minimal+"sweep:\n  generators.reads.outstanding: [4, 4, 8]\n"))
	msg := loadErr(t, minimal+"sweep_mode: zip\nsweep:\n  generators.reads.outstanding: [4, 4, 4]\n  run.seed: [1, 2, 1]\n")
	require.Equal(t, "w.yaml:9:40: sweep: point 2 (generators.reads.outstanding=4 run.seed=1) repeats point 0; a sweep's points must differ", msg)
	load(t, minimal+"sweep_mode: zip\nsweep:\n  generators.reads.outstanding: [4, 4]\n  run.seed: [1, 2]\n")
}

// A file with errors stops expanding its sweep at the first point with an
// error: a 1 MiB invalid file with a 256-point sweep is checked with one
// point's worth of work, not 256.
func TestInvalidFileStopsExpandingItsSweep(t *testing.T) {
	var b strings.Builder
	b.WriteString(minimal + "sweep:\n  run.seed: [")
	for i := range 16 {
		fmt.Fprintf(&b, "%d, ", i+1)
	}
	b.WriteString("17]\n  adapter.pcie.tags_max: [")
	for i := range 14 {
		fmt.Fprintf(&b, "%d, ", i+1)
	}
	b.WriteString("15]\nbogus: [")
	for b.Len() < FileBytesMax-16 {
		b.WriteString("1, ")
	}
	b.WriteString("1]\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msg := loadErr(t, b.String())
	runtime.ReadMemStats(&after)
	require.Contains(t, msg, "bogus: unknown key")
	require.Contains(t, msg, "sweep: the other 254 points were not checked: fix the errors above first")
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d points, %.0f MB allocated", 17*15, float64(alloc)/1e6)
	require.Less(t, alloc, uint64(400<<20), "the whole sweep was expanded")
}

// Open-loop backlogs are bounded in total, as streams x outstanding is: a
// 9-line file can no longer ask for a billion queued arrivals.
func TestOpenLoopBacklogTotalIsBounded(t *testing.T) {
	src := "run: {duration_us: 5}\ngenerators:\n  - {name: o, kind: dma_read, streams: 1024, arrival: {rate_mops: 100, backlog_max: 1000000}}\n"
	require.Equal(t, "w.yaml:3:85: generators.o.arrival.backlog_max: streams x backlog_max summed over the open-loop generators is 1024000000, more than 16777216 (2^24)", loadErr(t, src))
	load(t, "run: {duration_us: 5}\ngenerators:\n  - {name: o, kind: dma_read, streams: 256, arrival: {rate_mops: 100}}\n")
}

// A sweep key whose path names no key (sweep: {nosuch.key: [1, 2]}) is
// reported at that key under sweep, with its whole path, and when a --set
// gave the sweep, names that --set.
func TestSweepUnknownKeyNamesItsLine(t *testing.T) {
	msg := loadErr(t, minimal+"sweep:\n  run.seed: [1, 2]\n  nosuch.key: [1, 2]\n")
	require.Contains(t, msg, "w.yaml:9:3: sweep.nosuch.key: unknown key; allowed here: name, description, adapter, run, regions, generators, sweep\n")
	msg = loadErr(t, minimal+"sweep:\n  adapter.bogus: [1]\n")
	require.Contains(t, msg, "w.yaml:8:3: sweep.adapter.bogus: unknown key; allowed here: preset, pcie, mtt, nic, wire")
	msg = loadErr(t, minimal, "sweep={nosuch.key: [1,2]}")
	require.Contains(t, msg, "w.yaml: --set sweep={nosuch.key: [1,2]}: sweep.nosuch.key: unknown key; allowed here:")
	msg = loadErr(t, minimal+"sweep:\n  generators.nosuch.size_bytes: [64]\n")
	require.Contains(t, msg, `w.yaml:8:3: sweep.generators.nosuch.size_bytes: generators has no element named "nosuch"`)
	msg = loadErr(t, minimal, "sweep={generators.nosuch.size_bytes: [64]}")
	require.Contains(t, msg, `w.yaml: --set sweep={generators.nosuch.size_bytes: [64]}: sweep.generators.nosuch.size_bytes: generators has no element named`)
}
