package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yamlpos "go.yaml.in/yaml/v4"
)

// syntaxError is the located error of a file the YAML parser refused.
// yaml.v3 reports a syntax error at the line of the enclosing block, one
// line early for parser errors, and without a column; yaml.v4 carries the
// problem's and the context's line and column, so the file is parsed again
// with it to say where. A construct left open (a flow list or mapping, a
// quoted string) is reported where it opens, with where the parser gave up.
// When v4 accepts what v3 refused, v3's message stands, with its line. An
// encoding problem (bad UTF-8, a control character), which the parser
// reports without a position, is located by encodingError.
func syntaxError(name string, data []byte, v3line int, v3msg string) *Error {
	if isReaderProblem(v3msg) {
		if e := encodingError(name, data); e != nil {
			return e
		}
	}
	var doc yamlpos.Node
	err := yamlpos.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	var le *yamlpos.LoadError
	if !errors.As(err, &le) || le.Mark.Line == 0 {
		return &Error{File: name, Line: v3line, Msg: "YAML syntax: " + v3msg}
	}
	e := &Error{File: name, Line: le.Mark.Line, Col: le.Mark.Column, Msg: "YAML syntax: " + le.Message}
	what := openedConstruct(le.ContextMsg)
	atEnd := le.Mark.Index >= len(bytes.TrimRight(data, " \t\r\n"))
	switch {
	case what != "" && le.ContextMark.Line > 0:
		e.Line, e.Col = le.ContextMark.Line, le.ContextMark.Column
		e.Msg += fmt.Sprintf(" (the %s opened here is not closed; the parser stopped at %d:%d)", what, le.Mark.Line, le.Mark.Column)
	case atEnd:
		e.Msg += " (at the end of the file)"
	}
	return e
}

// openedConstruct names the construct a parser context opens, when an
// error inside it most likely means it was never closed.
func openedConstruct(context string) string {
	for _, c := range []string{"flow sequence", "flow mapping", "quoted scalar"} {
		if strings.Contains(context, c) {
			return map[string]string{"flow sequence": "list [", "flow mapping": "mapping {", "quoted scalar": "quoted string"}[c]
		}
	}
	return ""
}
