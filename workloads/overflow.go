package workloads

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlFloat is the form of a plain scalar the YAML parser reads as a float
// when it fits in one.
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// overflowMsg says that n, a plain (unquoted) scalar written as a number,
// is out of range, "" when it is not such a number. The YAML parser reads a
// number beyond what 64 bits hold (1e400, 0x1_0000_0000_0000_0000) as a
// string, so without this the message would be "expected a number".
func overflowMsg(n *yaml.Node, r *rule) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Style != 0 {
		return ""
	}
	plain := strings.ReplaceAll(n.Value, "_", "")
	var err error
	if yamlFloat.MatchString(plain) {
		_, err = strconv.ParseFloat(plain, 64)
	} else {
		_, err = strconv.ParseInt(plain, 0, 64)
	}
	if !errors.Is(err, strconv.ErrRange) {
		return ""
	}
	text := truncate(n.Value, 40)
	if r.hasRange {
		return fmt.Sprintf("%s is out of range %s", text, r.rangeText())
	}
	return text + " is out of range: it does not fit in 64 bits"
}
