package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeRunCommandWorks runs the README's "run" command (the first
// `go run ./cmd/nicsim ...` line of its command block) through the CLI from
// the repository root, as a reader would, so CI fails when the README's
// promise breaks. A `run` writes its output folder into a temporary
// directory (--out) instead of results/runs/.
func TestReadmeRunCommandWorks(t *testing.T) {
	f, err := os.Open("../../README.md")
	require.NoError(t, err)
	defer f.Close()
	var args []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "go run ./cmd/nicsim "); ok {
			if i := strings.Index(rest, "#"); i >= 0 {
				rest = rest[:i]
			}
			args = strings.Fields(rest)
			break
		}
	}
	require.NotEmpty(t, args, "README.md must show a `go run ./cmd/nicsim ...` command")
	if testing.Short() {
		t.Skip("runs the full README command")
	}
	if args[0] == "run" {
		args = append(args, "--out", filepath.Join(t.TempDir(), "readme"))
	}
	t.Chdir("../..")
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	require.Equal(t, 0, code, "README run command %q failed: %s", args, errb.String())
	if args[0] == "run" {
		require.Contains(t, out.String(), "p99 ns")
	}
	require.NotEmpty(t, out.String())
	t.Logf("README run command %q printed:\n%s", args, out.String())
}

func TestUnknownCommandIsAClearError(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 2, dispatch([]string{"frobnicate"}, &out, &errb))
	require.Contains(t, errb.String(), `unknown command "frobnicate"`)
	require.Contains(t, errb.String(), "bench-engine")
}

func TestBenchEngineRejectsOutOfRangeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench-engine", "-n", "0"},
		{"bench-engine", "-m", "20000"},
		{"bench-engine", "-events", "0"},
		{"bench-engine", "-bogus"},
	} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, dispatch(args, &out, &errb), "%v", args)
		require.NotEmpty(t, errb.String())
	}
}

func TestBenchEnginePrintsRate(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"bench-engine", "-n", "100", "-m", "10", "-events", "100000"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), "events/s")
}

// readmeCommands are the README's `go run ./cmd/nicsim ...` lines (comments
// cut), as argument lists, in order.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var out [][]string
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "go run ./cmd/nicsim ")
		if !ok {
			continue
		}
		if i := strings.Index(rest, "#"); i >= 0 {
			rest = rest[:i]
		}
		out = append(out, strings.Fields(rest))
	}
	return out
}

// TestReadmeCompareCommandsRunAsWritten runs the README's run-into-a-folder
// and compare lines in order from the repository root, with results/runs/
// moved into a temporary folder, and requires each to exit 0: the compare
// of a fresh quickstart run against its committed baseline finds no
// regression.
func TestReadmeCompareCommandsRunAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart workload")
	}
	tmp := t.TempDir()
	var ran []string
	cmds := readmeCommands(t)
	t.Chdir("../..")
	for _, args := range cmds {
		if args[0] != "compare" && (args[0] != "run" || !slices.Contains(args, "--out")) {
			continue
		}
		for i, a := range args {
			if rest, ok := strings.CutPrefix(a, "results/runs/"); ok {
				args[i] = filepath.Join(tmp, rest)
			}
		}
		if args[0] == "run" {
			args = append(args, "--quiet")
		}
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch(args, &out, &errb), "README command %q: %s%s", args, out.String(), errb.String())
		ran = append(ran, args[0])
	}
	require.Equal(t, []string{"run", "compare", "compare"}, ran)
}
