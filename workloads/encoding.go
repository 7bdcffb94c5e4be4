package workloads

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// readerProblems are the YAML reader's messages about a file's encoding:
// it names no position, so encodingError finds the offending byte itself.
var readerProblems = []string{
	"invalid leading UTF-8 octet", "invalid trailing UTF-8 octet",
	"incomplete UTF-8 octet sequence", "invalid length of a UTF-8 sequence",
	"invalid Unicode character", "control characters are not allowed",
}

// isReaderProblem reports whether msg, a YAML parser error, is about the
// file's encoding.
func isReaderProblem(msg string) bool {
	for _, p := range readerProblems {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// encodingError locates the first byte of a UTF-8 file that is not valid
// UTF-8 or is a character YAML does not allow (a control character such as
// NUL); nil when there is none, or when the file is UTF-16 (it starts with
// a UTF-16 byte order mark), which the YAML reader decodes itself.
func encodingError(name string, data []byte) *Error {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return nil
	}
	i := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	line, col := 1, 1
	for i < len(data) {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &Error{File: name, Line: line, Col: col,
				Msg: fmt.Sprintf("YAML syntax: byte 0x%02X is not valid UTF-8 (a workload or scenario file is UTF-8 text)", data[i])}
		case !yamlAllowed(r):
			return &Error{File: name, Line: line, Col: col,
				Msg: fmt.Sprintf("YAML syntax: control character %U is not allowed", r)}
		}
		line, col = nextPos(data, i, line, col)
		i += size
	}
	return nil
}

// nextPos is the line and column after the character at data[i], at
// line:col: a line ends at \n, or at a \r not followed by \n.
func nextPos(data []byte, i, line, col int) (int, int) {
	switch {
	case data[i] == '\n', data[i] == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
		return line + 1, 1
	case data[i] == '\r':
		return line, col
	}
	return line, col + 1
}

// yamlAllowed reports whether YAML allows character r in a stream: tab,
// line breaks, printable ASCII, NEL and the rest of Unicode but for the
// surrogates, U+FFFE and U+FFFF.
func yamlAllowed(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}
