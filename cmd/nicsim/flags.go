package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
)

// multiFlag collects a repeatable string flag (--set k=v --set k2=v2).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (nicsim run FILE --seed 3), and returns the
// positional arguments. A lone "--" ends flag parsing.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if code, ok := parseFlags(fs, args); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseSeed parses a --seed value ("" when not given: nil); a bad value is
// reported as a usage error of command cmd.
func parseSeed(cmd, s string, stderr io.Writer) (*uint64, bool) {
	if s == "" {
		return nil, true
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		fmt.Fprintf(stderr, "nicsim %s: --seed %q is not a whole number in 0..2^64-1\n", cmd, s)
		return nil, false
	}
	return &v, true
}

// parseThresholds parses --threshold metric=pct flags; a bad one is
// reported as a usage error of command cmd.
func parseThresholds(cmd string, ths []string, stderr io.Writer) (map[string]float64, bool) {
	thresholds := map[string]float64{}
	for _, t := range ths {
		name, v, err := results.ParseThreshold(t)
		if err != nil {
			fmt.Fprintf(stderr, "nicsim %s: --%v\n", cmd, err)
			return nil, false
		}
		thresholds[name] = v
	}
	return thresholds, true
}

// checkSets refuses more --set flags than a file takes (a usage error of
// command cmd).
func checkSets(cmd string, sets multiFlag, stderr io.Writer) bool {
	if len(sets) > workloads.OverridesMax {
		fmt.Fprintf(stderr, "nicsim %s: %d --set flags, at most %d\n", cmd, len(sets), workloads.OverridesMax)
		return false
	}
	return true
}

// loadFailure is the exit code of a workload file that did not load: a
// usage error (2) when a --set override or --seed is at fault (a bad flag
// value: an unknown key, a value out of range, a key or seed the sweep
// varies), else 1 (an invalid file).
func loadFailure(err error) int {
	var es workloads.Errors
	if errors.As(err, &es) && es.FromOverride() {
		return exitUsage
	}
	return exitFailed
}

// loadFailureNote is command cmd's last line when a file did not load,
// with the exit code loadFailure gave.
func loadFailureNote(cmd string, code int) string {
	if code == exitUsage {
		return "nicsim " + cmd + ": invalid --set or --seed flag; nothing was run"
	}
	return "nicsim " + cmd + ": invalid workload file; nothing was run"
}
