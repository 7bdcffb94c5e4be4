package main

import (
	"errors"
	"fmt"
	"os"
)

// traceCheck is what checkTrace found of the --trace path: refused with
// its exit code, or accepted, new when no file was there (then it is
// created only if still absent: openTrace).
type traceCheck struct {
	err  error
	code int
	new  bool
}

// checkTrace checks the --trace path before anything runs: it may not lie
// in an output folder (putting the folder in place would replace it), nor
// be an input file; an existing file is replaced only with force.
func checkTrace(trace string, files, dirs []string, force bool) traceCheck {
	for _, d := range dirs {
		if within(trace, d) {
			return traceCheck{err: fmt.Errorf("--trace %s lies in the output folder %s, which the run replaces whole; write the trace outside it", trace, d), code: exitUsage}
		}
	}
	st, err := os.Stat(trace)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return traceCheck{new: true}
	case err != nil:
		return traceCheck{err: fmt.Errorf("--trace: %w", err), code: exitFailed}
	case st.IsDir():
		return traceCheck{err: fmt.Errorf("--trace %s is a folder; name a file", trace), code: exitUsage}
	}
	for _, f := range files {
		if fst, err := os.Stat(f); err == nil && os.SameFile(st, fst) {
			return traceCheck{err: fmt.Errorf("--trace %s is the input file %s; name another file", trace, f), code: exitUsage}
		}
	}
	if st.Mode().IsRegular() && !force {
		return traceCheck{err: fmt.Errorf("--trace %s exists; name another file, or replace it with --force", trace), code: exitFailed}
	}
	return traceCheck{}
}

// openTrace creates the trace file: exclusively when checkTrace found no
// file there, so one made since is not replaced.
func openTrace(trace string, isNew bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if isNew {
		flags |= os.O_EXCL
	}
	return os.OpenFile(trace, flags, 0o644)
}
