package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The files of an output folder.
const (
	ResultsJSON   = "results.json"   // the Result
	ResultsCSV    = "results.csv"    // one row per point, generator and part
	TimeseriesCSV = "timeseries.csv" // one row per point, interval and generator or resource
	ConfigJSON    = "config.json"    // the resolved configuration (Config)
	MetaJSON      = "meta.json"      // how the run was made (meta.go)
)

// EncodeJSON is the exact bytes of results.json: indented, one trailing
// newline.
func EncodeJSON(r *Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	err := enc.Encode(r)
	return b.Bytes(), err
}

// WriteJSON writes v to path as indented JSON (the bytes of EncodeIndented).
func WriteJSON(path string, v any) error {
	b, err := EncodeIndented(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// EncodeIndented is v as WriteJSON writes it (config.json, meta.json):
// indented, one trailing newline.
func EncodeIndented(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// WriteResults writes results.json, results.csv and timeseries.csv into
// dir, creating it.
func WriteResults(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := EncodeJSON(r)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsJSON), b, 0o644); err != nil {
		return err
	}
	var c bytes.Buffer
	if err := WriteCSV(&c, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsCSV), c.Bytes(), 0o644); err != nil {
		return err
	}
	c.Reset()
	if err := WriteTimeseriesCSV(&c, r); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, TimeseriesCSV), c.Bytes(), 0o644)
}

// WriteRun writes the output folder of a run: results.json, results.csv,
// config.json and meta.json.
func WriteRun(dir string, r *Result, cfg Config, m Meta) error {
	if err := WriteResults(dir, r); err != nil {
		return err
	}
	if err := WriteJSON(filepath.Join(dir, ConfigJSON), cfg); err != nil {
		return err
	}
	return WriteJSON(filepath.Join(dir, MetaJSON), m)
}

// ReadResult reads a results.json, given as the file or the run folder
// holding it. A file with a field this version does not know is refused,
// and so is one with no point (ReadShard accepts an empty shard).
func ReadResult(path string) (*Result, error) { return readResult(path, false) }

func readResult(path string, empty bool) (*Result, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, ResultsJSON)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	return parseResult(path, data, empty)
}

// parseResult decodes the results.json data read from path; empty allows
// one with no point.
func parseResult(path string, data []byte, empty bool) (*Result, error) {
	var r Result
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "unknown field") {
			hint = " (written by another nicsim version? rerun it, or remake baselines with make baselines)"
		}
		return nil, fmt.Errorf("%s: not a results.json this nicsim reads: %v%s", path, err, hint)
	}
	if len(r.Points) == 0 && !empty {
		return nil, fmt.Errorf("%s: results hold no points", path)
	}
	return &r, nil
}
