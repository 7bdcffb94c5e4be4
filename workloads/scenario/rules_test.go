package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The NDK rules as a suite (docs/rules-index.md): every file in rules/
// runs, and the index names every rule of docs/ndk.md sections 2 and 5.

const rulesDir = "rules"

func ruleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(rulesDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// TestRulesSuite runs every rules file; any failed expectation fails it.
func TestRulesSuite(t *testing.T) {
	for _, f := range ruleFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, s.Run(&out))
		})
	}
}

// ruleTag matches a step name that checks a rule: "rule 45: ..." or
// "§5.6: ...".
var ruleTag = regexp.MustCompile(`^(rule (\d+)|§(5\.\d)): `)

// ruleOf is the rule a step name cites ("45", "5.6"), or "".
func ruleOf(name string) string {
	m := ruleTag.FindStringSubmatch(name)
	switch {
	case m == nil:
		return ""
	case m[2] != "":
		return m[2]
	}
	return m[3]
}

// indexRow is one row of the index table: a rule, its file ("" when the
// rule is not checked) and the step names, or the reason.
type indexRow struct {
	rule, file string
	steps      []string
	reason     string
}

// indexRule matches the rule cell of an index row: "45" or "§5.6".
var indexRule = regexp.MustCompile(`^ ?(\d+|§5\.\d)$`)

func readIndex(t *testing.T) []indexRow {
	t.Helper()
	b, err := os.ReadFile("../../docs/rules-index.md")
	require.NoError(t, err)
	var rows []indexRow
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 || !indexRule.MatchString(cells[0]) {
			continue
		}
		r := indexRow{rule: strings.TrimPrefix(strings.TrimSpace(cells[0]), "§")}
		if f := strings.Trim(cells[1], "` "); f != "—" {
			r.file = f
			for _, s := range strings.Split(strings.TrimSpace(cells[2]), "<br>") {
				r.steps = append(r.steps, strings.ReplaceAll(s, `\|`, "|"))
			}
		} else {
			r.reason = strings.TrimSpace(cells[2])
		}
		rows = append(rows, r)
	}
	return rows
}

// TestRulesIndexCoversEveryRule checks docs/rules-index.md against the
// rules files: every rule is listed, every step it names exists in its file
// and cites that rule, and every step that cites a rule is listed.
func TestRulesIndexCoversEveryRule(t *testing.T) {
	named := map[string]map[string]bool{} // file -> step names citing a rule
	for _, f := range ruleFiles(t) {
		s, err := Load(f)
		require.NoError(t, err)
		names := map[string]bool{}
		for _, st := range s.Steps {
			if ruleOf(st.Name) != "" {
				require.False(t, names[st.Name], "%s: step name %q given twice", f, st.Name)
				names[st.Name] = true
			}
		}
		named[filepath.Base(f)] = names
	}
	listed := map[string]bool{}
	for _, r := range readIndex(t) {
		listed[r.rule] = true
		if r.file == "" {
			require.NotEmpty(t, r.reason, "rule %s: not checked, without a reason", r.rule)
			continue
		}
		names, ok := named[r.file]
		require.True(t, ok, "rule %s: no rules file %s", r.rule, r.file)
		for _, s := range r.steps {
			require.True(t, names[s], "rule %s: %s has no step named %q", r.rule, r.file, s)
			require.Equal(t, r.rule, ruleOf(s), "step %q is listed under rule %s", s, r.rule)
			delete(names, s)
		}
	}
	for i := 1; i <= 66; i++ {
		require.True(t, listed[fmt.Sprint(i)], "rule %d is not in docs/rules-index.md", i)
	}
	for i := 1; i <= 8; i++ {
		require.True(t, listed[fmt.Sprintf("5.%d", i)], "§5.%d is not in docs/rules-index.md", i)
	}
	for f, names := range named {
		require.Empty(t, names, "%s: steps citing a rule that docs/rules-index.md does not list", f)
	}
}
