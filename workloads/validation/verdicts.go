package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// The kept verdicts: verdicts.json records each row's verdict. A fresh
// run that loses a verdict that held (within, or a calibration that
// reproduces its figure) is a regression; rows added, removed or whose
// verdict changed otherwise mean the file is out of date. Either way the
// file is rewritten only on purpose (`nicsim validate --update-verdicts`),
// so a row that leaves its tolerance cannot pass unnoticed.

// VerdictsFile is the name of the kept verdicts in the validation folder.
const VerdictsFile = "verdicts.json"

// KeptVerdicts is verdicts.json.
type KeptVerdicts struct {
	Rows []KeptVerdict `json:"rows"`
}

// KeptVerdict is one row's recorded verdict.
type KeptVerdict struct {
	ID      string  `json:"id"`
	File    string  `json:"file"`
	Verdict Verdict `json:"verdict"`
}

// Verdicts are the report's verdicts, sorted by row id.
func (rep *Report) Verdicts() KeptVerdicts {
	var k KeptVerdicts
	for i := range rep.Outcomes {
		o := &rep.Outcomes[i]
		k.Rows = append(k.Rows, KeptVerdict{ID: o.Row.ID, File: stem(o.File.Path), Verdict: o.Verdict})
	}
	sort.Slice(k.Rows, func(i, j int) bool { return k.Rows[i].ID < k.Rows[j].ID })
	return k
}

// Encode is the file's bytes: indented JSON and a newline.
func (k KeptVerdicts) Encode() []byte {
	b, _ := json.MarshalIndent(k, "", "  ") // plain strings: cannot fail
	return append(b, '\n')
}

// ReadVerdicts reads a verdicts file strictly.
func ReadVerdicts(path string) (KeptVerdicts, error) {
	var k KeptVerdicts
	data, err := os.ReadFile(path)
	if err != nil {
		return k, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&k); err != nil {
		return k, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Change is one row whose verdict differs from the kept one.
type Change struct {
	ID         string
	Was, Now   Verdict // "" when the row is new (Was) or gone (Now)
	Regression bool    // a verdict that held no longer does
}

func (c Change) String() string {
	was, now := string(c.Was), string(c.Now)
	if was == "" {
		was = "(no row)"
	}
	if now == "" {
		now = "(no row)"
	}
	kind := "changed"
	if c.Regression {
		kind = "REGRESSION"
	}
	return fmt.Sprintf("%s: %s: %s -> %s", kind, c.ID, was, now)
}

// Compare lists the rows of now whose verdict differs from kept, and the
// kept rows now lacks, sorted by id.
func Compare(kept, now KeptVerdicts) []Change {
	old := map[string]Verdict{}
	for _, r := range kept.Rows {
		old[r.ID] = r.Verdict
	}
	var out []Change
	for _, r := range now.Rows {
		was, ok := old[r.ID]
		delete(old, r.ID)
		if ok && was == r.Verdict {
			continue
		}
		out = append(out, Change{ID: r.ID, Was: was, Now: r.Verdict, Regression: was.Holds() && !r.Verdict.Holds()})
	}
	for id, was := range old {
		out = append(out, Change{ID: id, Was: was, Regression: was.Holds()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
