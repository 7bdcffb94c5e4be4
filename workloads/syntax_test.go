package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A YAML syntax error names the line and column of the problem; a list,
// mapping or quoted string left open is reported where it opens.
func TestYAMLSyntaxErrorPointsAtLineAndColumn(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"run:\n  duration_us: [5\ngenerators:\n  - {kind: dma_read}\n",
			"w.yaml:2:16: YAML syntax: did not find expected ',' or ']' (the list [ opened here is not closed; the parser stopped at 3:11)"},
		{"run: {duration_us: 5\ngenerators: []\n", "w.yaml:1:6: YAML syntax: did not find expected ',' or '}' (the mapping { opened here is not closed"},
		{"run:\n  duration_us: 5\n warmup_us: 2\n", "w.yaml:3:2: YAML syntax: did not find expected key"},
		{"run:\n  duration_us: 5\n\tops: 2\n", "w.yaml:3:1: YAML syntax: found a tab character that violates indentation"},
		{"name: 'abc\nrun: {}\n", "w.yaml:1:7: YAML syntax: found unexpected end of stream (the quoted string opened here is not closed"},
		{"name: x\nrun: @5\n", "w.yaml:2:6: YAML syntax: found character that cannot start any token"},
		{"run: [\n", "w.yaml:2:1: YAML syntax: did not find expected node content (at the end of the file)"},
	} {
		require.Contains(t, loadErr(t, c.src), c.want, c.src)
	}
}

// A file that is not UTF-8 text, or holds a control character YAML does
// not allow, is refused at the line and column of the first offending
// byte, not with a bare message.
func TestEncodingErrorNamesLineAndColumn(t *testing.T) {
	valid := []byte(minimal + "name: abcdefgh\n")
	bad := append([]byte(nil), valid...)
	bad[60] = 0xff
	require.Equal(t, "w.yaml:6:10: YAML syntax: byte 0xFF is not valid UTF-8 (a workload or scenario file is UTF-8 text)", loadErr(t, string(bad)))
	require.Equal(t, "w.yaml:2:3: YAML syntax: control character U+0000 is not allowed", loadErr(t, "run:\n  \x00duration_us: 5\n"))
	require.Equal(t, "w.yaml:1:8: YAML syntax: byte 0xC3 is not valid UTF-8 (a workload or scenario file is UTF-8 text)", loadErr(t, "name: \xc3\xa9\xc3(\n"))
	require.Equal(t, "w.yaml:3:1: YAML syntax: control character U+0007 is not allowed", loadErr(t, "run:\r\n  duration_us: 5\r\n\a\n"))
	require.Regexp(t, `^w\.yaml:1:1: YAML syntax: byte 0x[0-9A-F]{2} is not valid UTF-8`, loadErr(t, "\x80\xfe\x01random"))
	load(t, "\xef\xbb\xbf"+minimal+"name: \xc3\xa9t\xc3\xa9\n")
}
