package workloads

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one problem in a workload file: where it is (file:line:col, or
// the --set override that introduced the value), the key path and what is
// wrong, with the allowed range when there is one.
type Error struct {
	File string // file name as given to Load
	Line int    // 1-based; 0 when the value came from an override
	Col  int    // 1-based
	// Origin names the source when the value did not come from the file
	// itself, such as `--set adapter.pcie.lanes=32`.
	Origin string
	Path   string // dotted key path, such as adapter.pcie.lanes
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Origin != "":
		fmt.Fprintf(&b, "%s: %s", e.File, e.Origin)
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, "%s:%d:%d", e.File, e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d", e.File, e.Line)
	default:
		b.WriteString(e.File)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, in the order found (document
// order for decoding, then cross-field checks). A file with any error is
// never run.
type Errors []*Error

// FromOverride reports whether any of the problems came from a --set
// override or --seed (its Origin names it): a bad value given on the command line,
// which a command reports as a bad flag.
func (es Errors) FromOverride() bool {
	for _, e := range es {
		if e.Origin != "" {
			return true
		}
	}
	return false
}

// ErrorsMax bounds the problems reported for one file; past it the list
// ends with a note.
const ErrorsMax = 100

// Add appends e unless the list already holds ErrorsMax problems; it
// reports whether e was kept.
func (es *Errors) Add(e *Error) bool {
	if len(*es) >= ErrorsMax {
		return false
	}
	*es = append(*es, e)
	return true
}

// At is a problem of file at node position line:col (0, 0: none).
func At(file string, line, col int, path, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (es Errors) Error() string {
	lines := make([]string, 0, len(es))
	for _, e := range es {
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

// NodePos is the line and column of n, 0, 0 for nil.
func NodePos(n *yaml.Node) (line, col int) {
	if n == nil {
		return 0, 0
	}
	return n.Line, n.Column
}
