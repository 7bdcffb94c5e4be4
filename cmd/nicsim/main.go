package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// version is the nicsim version recorded in every result folder.
const version = "0.1.0"

// Exit codes of the commands.
const (
	exitOK          = 0
	exitFailed      = 1   // invalid workload file, or the run failed
	exitUsage       = 2   // bad flags or arguments
	exitInterrupted = 130 // Ctrl-C (SIGTERM 143, SIGHUP 129: interruptedExit): results so far written, marked partial
)

// command is one subcommand. run gets the arguments after the subcommand's
// name and writes to stdout/stderr; it returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands are the subcommands, one file each (pcie.go implements pcie).
// A new command is one row here and its file.
var commands = map[string]command{
	"bench-engine": {"measure the event engine's speed on the PHOLD model", runBenchEngine},
	"check":        {"validate workload files without running them", runCheck},
	"compare":      {"compare two results metric by metric; exit 1 on a regression, 2 on bad input", runCompare},
	"merge":        {"combine the shard outputs of a sweep into the output of the whole sweep", runMerge},
	"pcie":         {"sweep DMA streams over transfer sizes on a PCIe link model", runPCIe},
	"presets":      {"list the adapter presets with every value and its source", runPresets},
	"regress":      {"rerun the committed baselines and compare; exit 1 on a regression", runRegress},
	"run":          {"run workload files: summary table, results in an output folder", runRun},
	"sweep":        {"run a workload's sweep points in parallel; CSV, JSON and plots", runSweepCmd},
	"validate":     {"compare nicsim with published measurements; writes docs/VALIDATION.md", runValidate},
}

func main() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) }

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		if !noArgs("version", args[1:], stderr) {
			return exitUsage
		}
		fmt.Fprintln(stdout, "nicsim", version+buildNote())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "nicsim: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	warnCheckBuild(stderr)
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "nicsim: a cycle-level simulator of an RDMA NIC's memory-registration paths")
	fmt.Fprintln(w, "\nUsage: nicsim <command> [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-14s %s\n", "version", "print the nicsim version")
	fmt.Fprintln(w, "\nRun 'nicsim <command> -h' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, usageLine string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: nicsim %s %s\n\nFlags:\n", name, usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns an exit code and false when the caller
// should stop (help asked for: 0; bad flag: 2). A flag given an empty
// value (--out "", --seed "") is a bad flag: no flag means anything by one.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if name := emptyFlag(fs); name != "" {
		fmt.Fprintf(fs.Output(), "nicsim %s: --%s is given an empty value; give a value or leave the flag out\n", fs.Name(), name)
		return 2, false
	}
	return 0, true
}

// emptyFlag is the name of the first flag given with an empty value, ""
// when there is none.
func emptyFlag(fs *flag.FlagSet) string {
	name := ""
	fs.Visit(func(f *flag.Flag) {
		if name == "" && f.Value.String() == "" {
			name = f.Name
		}
	})
	return name
}

// noArgs refuses the arguments of a command that takes none (exit 2).
func noArgs(cmd string, args []string, stderr io.Writer) bool {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "nicsim %s: unexpected argument %q\n", cmd, args[0])
		return false
	}
	return true
}
