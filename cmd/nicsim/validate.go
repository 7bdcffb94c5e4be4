package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads/validation"
)

const validateUsage = "[--dir workloads/validation] [--doc docs/VALIDATION.md] [--img docs/img] [--jobs N] [--update-verdicts] [FILE...]"

// validateCmd is one `nicsim validate`: its flags.
type validateCmd struct {
	dir, doc, img string
	jobs          int
	update        bool
	files         []string
	stdout        io.Writer
	stderr        io.Writer
}

// runValidate runs the validation files. Without FILE arguments it runs
// every file of --dir, writes the report and its plots and compares the
// verdicts with the kept ones (exit 1 on a regression unless
// --update-verdicts rewrites them); with FILEs it prints their rows and
// writes nothing.
func runValidate(args []string, stdout, stderr io.Writer) int {
	c := &validateCmd{stdout: stdout, stderr: stderr}
	if code, ok := c.parse(args); !ok {
		return code
	}
	files, err := c.load()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	rep, err := validation.Run(files, validation.Options{Jobs: c.jobs,
		Progress: func(f *validation.File) { fmt.Fprintf(stderr, "validate: %s\n", f.Path) }})
	if err != nil {
		fmt.Fprintf(stderr, "nicsim validate: %v\n", err)
		return exitFailed
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "nicsim validate: warning: %s\n", w)
	}
	if len(c.files) > 0 {
		printOutcomes(stdout, rep)
		return exitOK
	}
	if sim.SameTimeReversed {
		// A check build's figures are not the model's own: it compares the
		// verdicts and writes no report.
		fmt.Fprintf(stderr, "nicsim validate: a check build (-tags reverseties) leaves %s and %s as they are\n", c.doc, c.img)
	} else if err := c.write(rep); err != nil {
		fmt.Fprintf(stderr, "nicsim validate: %v\n", err)
		return exitFailed
	}
	return c.verdicts(rep)
}

func (c *validateCmd) parse(args []string) (int, bool) {
	fs := newFlagSet("validate", validateUsage, c.stderr)
	fs.StringVar(&c.dir, "dir", filepath.Join("workloads", "validation"), "folder of validation files and verdicts.json")
	fs.StringVar(&c.doc, "doc", filepath.Join("docs", "VALIDATION.md"), "the report to write")
	fs.StringVar(&c.img, "img", filepath.Join("docs", "img"), "folder of the report's plots")
	fs.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "sweep points run at once (1..1024); results do not depend on it")
	fs.BoolVar(&c.update, "update-verdicts", false, "rewrite verdicts.json from this run (a row that stops holding is accepted: say why in docs/DEVIATIONS.md)")
	rest, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code, false
	}
	if c.jobs < 1 || c.jobs > 1024 {
		fmt.Fprintf(c.stderr, "nicsim validate: --jobs %d is out of range 1..1024\n", c.jobs)
		return exitUsage, false
	}
	if c.update && refuseCheckBuildWrite(c.stderr, "validate", "verdicts") {
		return exitUsage, false
	}
	if len(rest) > 0 && c.update {
		fmt.Fprintln(c.stderr, "nicsim validate: --update-verdicts needs the whole folder, not FILE arguments")
		return exitUsage, false
	}
	c.files = rest
	return exitOK, true
}

func (c *validateCmd) load() ([]*validation.File, error) {
	if len(c.files) == 0 {
		return validation.LoadDir(c.dir)
	}
	var out []*validation.File
	for _, p := range c.files {
		f, err := validation.Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// write writes the plots, then the report, each file whole or not at all.
func (c *validateCmd) write(rep *validation.Report) error {
	plots, err := rep.WritePlots(c.img)
	if err != nil {
		return err
	}
	doc := rep.Render(validation.RenderOptions{DocDir: filepath.Dir(c.doc), ImgDir: c.img})
	if err := writeFileAtomic(c.doc, doc); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "wrote %s and %d plots in %s\n", c.doc, len(plots), c.img)
	return nil
}

// verdicts compares the run's verdicts with the kept ones, or rewrites
// them with --update-verdicts.
func (c *validateCmd) verdicts(rep *validation.Report) int {
	path := filepath.Join(c.dir, validation.VerdictsFile)
	now := rep.Verdicts()
	kept, err := validation.ReadVerdicts(path)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintf(c.stderr, "nicsim validate: %v\n", err)
		return exitFailed
	}
	changes := validation.Compare(kept, now)
	regressions := 0
	for _, ch := range changes {
		fmt.Fprintln(c.stdout, ch)
		if ch.Regression {
			regressions++
		}
	}
	if c.update {
		if err := writeFileAtomic(path, now.Encode()); err != nil {
			fmt.Fprintf(c.stderr, "nicsim validate: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(c.stdout, "wrote %s (%d rows, %d changed)\n", path, len(now.Rows), len(changes))
		return exitOK
	}
	if len(changes) > 0 {
		fmt.Fprintf(c.stdout, "%d rows differ from %s: if intended, run 'nicsim validate --update-verdicts' and commit it\n", len(changes), path)
	}
	if regressions > 0 {
		fmt.Fprintf(c.stderr, "nicsim validate: %d rows stopped holding\n", regressions)
		return exitFailed
	}
	return exitOK
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// printOutcomes prints each row's figures as a table.
func printOutcomes(w io.Writer, rep *validation.Report) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tpublished\tnicsim\terror\ttolerance\tverdict\t  bound by")
	for _, l := range rep.Lines() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t  %s\n", l.ID, l.Published, l.NICSim, l.Error, l.Tolerance, l.Verdict, l.BoundBy)
	}
	tw.Flush()
}
