package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	err := encodeJSON(&b, r)
	return b.Bytes(), err
}

// encodeJSON writes the bytes of EncodeJSON to w.
func encodeJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
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
// dir, creating it. Each file is written as it is encoded, through a
// buffer of its own: a sweep's time series runs to megabytes, which a
// copy in memory would first have to grow to, clearing it as it grows.
func WriteResults(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Result) error
	}{{ResultsJSON, encodeJSON}, {ResultsCSV, WriteCSV}, {TimeseriesCSV, WriteTimeseriesCSV}} {
		if err := writeFile(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return err
		}
	}
	return nil
}

// writeFile creates path and writes it with write, through a buffer; a
// file that could not be written whole is removed.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
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
	data, err := ReadOutputFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	return parseResult(path, data, empty)
}

// parseResult decodes the results.json data read from path; empty allows
// one with no point.
func parseResult(path string, data []byte, empty bool) (*Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "unknown field") {
			hint = " (written by another nicsim version? rerun it, or remake baselines with make baselines)"
		}
		return nil, fmt.Errorf("%s: not a results.json this nicsim reads: %v%s%s", path, err, jsonAt(data, err), hint)
	}
	if len(r.Points) == 0 && !empty {
		return nil, fmt.Errorf("%s: results hold no points", path)
	}
	return &r, nil
}
