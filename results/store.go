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
	"sync"
)

// PointsDir is the folder of a sweep's output where each point's result is
// kept as it finishes (<index>.json, the index in the whole sweep), so
// that an interrupted sweep can be resumed (nicsim sweep --resume). It is
// removed once the sweep's results are complete.
const PointsDir = "points"

// PointsKeptBytesMax is how much of the points' results.json text a point
// store also keeps in memory, with the points themselves (about as much
// again), so that writing the outputs need not read those points back and
// encode them again: 32 MiB, assumed (about 70 points the size of
// rdma-read-write's, 450 KB of text each, or 340 of translation-reach-
// cliff's, 97 KB; the memory budget already counts 1 MiB per point's
// results, docs/workloads.md). Points past it are read back from their
// files.
const PointsKeptBytesMax = 32 << 20

// PointStore is the points folder of an output folder, and the points it
// keeps in memory.
type PointStore struct {
	dir string

	mu        sync.Mutex
	kept      map[int]keptPoint
	keptBytes int
	keptMax   int
}

// keptPoint is a point kept in memory and its element of results.json's
// points list (writePointJSON).
type keptPoint struct {
	p    *PointResult
	json []byte
}

// NewPointStore is the point store of output folder out, created if
// needed, keeping up to PointsKeptBytesMax of points in memory.
func NewPointStore(out string) (*PointStore, error) { return newPointStore(out, PointsKeptBytesMax) }

func newPointStore(out string, keptMax int) (*PointStore, error) {
	d := filepath.Join(out, PointsDir)
	return &PointStore{dir: d, kept: map[int]keptPoint{}, keptMax: keptMax}, os.MkdirAll(d, 0o755)
}

func (s *PointStore) path(k int) string { return filepath.Join(s.dir, strconv.Itoa(k)+".json") }

// Put keeps point k's result (written to a temporary file, then renamed,
// so a point file is complete or absent), in memory too while the store
// has room: the caller must not change p afterwards. A partial point is
// not kept.
func (s *PointStore) Put(k int, p *PointResult) error {
	if p.Partial {
		return nil
	}
	b, err := pointJSON(p)
	if err != nil {
		return err
	}
	tmp := s.path(k) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path(k)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keptBytes+len(b) <= s.keptMax {
		s.kept[k] = keptPoint{p, b}
		s.keptBytes += len(b)
	}
	return nil
}

// Has reports whether point k's result is kept.
func (s *PointStore) Has(k int) bool {
	_, err := os.Stat(s.path(k))
	return err == nil
}

// Get returns point k's result and its element of results.json's points
// list: kept in memory, or read from its file (the element then nil).
func (s *PointStore) Get(k int) (*PointResult, []byte, error) {
	s.mu.Lock()
	kp, ok := s.kept[k]
	s.mu.Unlock()
	if ok {
		return kp.p, kp.json, nil
	}
	p, err := readPoint(s.path(k))
	return p, nil, err
}

// readPoint reads a point file.
func readPoint(path string) (*PointResult, error) {
	b, err := ReadOutputFile(path)
	if err != nil {
		return nil, err
	}
	var p PointResult
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a point's result this nicsim reads: %v%s; remove it, and the point runs again", path, err, jsonAt(b, err))
	}
	return &p, nil
}

// checkPoints reads every point file of output folder dir (a sweep's
// folder or work folder), so that one that cannot be read is found before
// a resumed sweep runs anything, not as its outputs are written. A .tmp
// file (a point being written when the sweep stopped) is not read: the
// point runs again.
func checkPoints(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, PointsDir, "*.json"))
	for _, f := range files {
		if err == nil {
			_, err = readPoint(f)
		}
	}
	return err
}

// Remove deletes the points folder and forgets the points kept in memory.
func (s *PointStore) Remove() error {
	s.mu.Lock()
	s.kept, s.keptBytes = map[int]keptPoint{}, 0
	s.mu.Unlock()
	return os.RemoveAll(s.dir)
}

// WriteStreamed writes results.json, results.csv and timeseries.csv into
// dir for a result whose points are read one at a time (point(i) for i
// in 0..n-1), with the point's element of results.json's points list when
// the caller has it (nil: encoded here). head is the result without its
// points. The bytes are those WriteResults writes for the whole result.
func WriteStreamed(dir string, head *Result, n int, point func(i int) (*PointResult, []byte, error)) error {
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
		p, js, err := point(i)
		if err != nil {
			return err
		}
		if err := writePointJSON(files[ResultsJSON], p, js, i); err != nil {
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

// pointJSON is point p as an element of results.json's points list,
// indented as EncodeJSON indents it.
func pointJSON(p *PointResult) ([]byte, error) { return json.MarshalIndent(p, "    ", "  ") }

// writePointJSON writes point p, whose pointJSON is b when not nil, as the
// i-th element of the points list.
func writePointJSON(w *bufio.Writer, p *PointResult, b []byte, i int) error {
	if b == nil {
		var err error
		if b, err = pointJSON(p); err != nil {
			return err
		}
	}
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteString("\n    ")
	_, err := w.Write(b)
	return err
}
