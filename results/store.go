package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// PointsDir is the folder of a sweep's output where each point's result is
// kept as it finishes (<index>.json, the index in the whole sweep), so a
// sweep holds one point at a time in memory however many it has, and an
// interrupted sweep can be resumed (nicsim sweep --resume). It is removed
// once the sweep's results are complete.
const PointsDir = "points"

// PointStore is the points folder of an output folder.
type PointStore struct{ dir string }

// NewPointStore is the point store of output folder out, created if
// needed.
func NewPointStore(out string) (*PointStore, error) {
	d := filepath.Join(out, PointsDir)
	return &PointStore{dir: d}, os.MkdirAll(d, 0o755)
}

func (s *PointStore) path(k int) string { return filepath.Join(s.dir, strconv.Itoa(k)+".json") }

// Put keeps point k's result (written to a temporary file, then renamed,
// so a point file is complete or absent). A partial point is not kept.
func (s *PointStore) Put(k int, p *PointResult) error {
	if p.Partial {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	tmp := s.path(k) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(k))
}

// Has reports whether point k's result is kept.
func (s *PointStore) Has(k int) bool {
	_, err := os.Stat(s.path(k))
	return err == nil
}

// Get reads point k's result.
func (s *PointStore) Get(k int) (*PointResult, error) {
	b, err := os.ReadFile(s.path(k))
	if err != nil {
		return nil, err
	}
	var p PointResult
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", s.path(k), err)
	}
	return &p, nil
}

// Remove deletes the points folder.
func (s *PointStore) Remove() error { return os.RemoveAll(s.dir) }

// WriteStreamed writes results.json, results.csv and timeseries.csv into
// dir for a result whose points are read one at a time (point(i) for i
// in 0..n-1), holding one in memory at a time. head is the result without
// its points. The bytes are those WriteResults writes for the whole
// result.
func WriteStreamed(dir string, head *Result, n int, point func(i int) (*PointResult, error)) error {
	files := map[string]*bufio.Writer{}
	for _, name := range []string{ResultsJSON, ResultsCSV, TimeseriesCSV} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		files[name] = bufio.NewWriterSize(f, 1<<16)
	}
	js, tail, err := jsonFrame(head)
	if err != nil {
		return err
	}
	files[ResultsJSON].Write(js)
	rc := csv.NewWriter(files[ResultsCSV])
	t := newCSVTable(head.Sweep)
	rc.Write(t.header)
	tw := newTimeseriesWriter(files[TimeseriesCSV], t)
	for i := range n {
		p, err := point(i)
		if err != nil {
			return err
		}
		if err := writePointJSON(files[ResultsJSON], p, i); err != nil {
			return err
		}
		rc.WriteAll(t.rows(p))
		tw.point(p)
	}
	if n > 0 {
		files[ResultsJSON].WriteString("\n  ")
	}
	files[ResultsJSON].Write(tail)
	for _, err := range []error{rc.Error(), tw.flush()} {
		if err != nil {
			return err
		}
	}
	for _, w := range files {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// jsonFrame is results.json of head up to the opening of its points list,
// and what follows the list.
func jsonFrame(head *Result) ([]byte, []byte, error) {
	h := *head
	h.Points = []PointResult{}
	b, err := EncodeJSON(&h)
	if err != nil {
		return nil, nil, err
	}
	i := bytes.LastIndex(b, []byte(`"points": []`))
	if i < 0 {
		return nil, nil, fmt.Errorf("results: no points list in %s", b)
	}
	i += len(`"points": [`)
	return b[:i], b[i:], nil
}

// writePointJSON writes point p as the i-th element of the points list,
// indented as EncodeJSON indents it.
func writePointJSON(w *bufio.Writer, p *PointResult, i int) error {
	b, err := json.MarshalIndent(p, "    ", "  ")
	if err != nil {
		return err
	}
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteString("\n    ")
	_, err = w.Write(b)
	return err
}
