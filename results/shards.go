package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
)

// Shard is a shard's output folder as merge reads it: its results (which
// may hold no point: a shard of a sweep with fewer points than shards) and
// its config.json, which holds the whole sweep's resolved configuration.
type Shard struct {
	Dir    string
	Result *Result
	Config []byte
	// SameTimeOrder is its meta.json's same_time_order: "reversed" for a
	// shard a check build ran (Provenance), empty otherwise or without a
	// meta.json.
	SameTimeOrder string
}

// ReadShard reads the results.json and config.json of a shard folder.
func ReadShard(dir string) (*Shard, error) {
	res, err := ReadOutputFile(filepath.Join(dir, ResultsJSON))
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	cfg, err := ReadOutputFile(filepath.Join(dir, ConfigJSON))
	if err != nil {
		return nil, err
	}
	sh, err := parseShard(dir, res, cfg)
	if err == nil {
		sh.SameTimeOrder, err = shardOrder(dir)
	}
	return sh, err
}

// shardOrder reads same_time_order from the meta.json in dir, if any.
func shardOrder(dir string) (string, error) {
	path := filepath.Join(dir, MetaJSON)
	b, err := ReadOutputFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var m struct {
		SameTimeOrder string `json:"same_time_order"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return m.SameTimeOrder, nil
}

// SameOrder checks that every shard ran events of one time in one order:
// all by an ordinary build, or all by a check build (docs/accuracy.md,
// section 8). It returns that order.
func SameOrder(shards []*Shard) (string, error) {
	for n := 1; n < len(shards); n++ {
		if a, b := shards[0].SameTimeOrder, shards[n].SameTimeOrder; a != b {
			return "", fmt.Errorf("shard %d (%s) ran same-time events in %s order, shard 0 (%s) in %s order: one of them is a check build's (-tags reverseties)",
				n, shards[n].Dir, SameTimeOrderName(b), shards[0].Dir, SameTimeOrderName(a))
		}
	}
	return shards[0].SameTimeOrder, nil
}

// SameTimeOrderName names a same_time_order value (Provenance) in a
// message: "the ordinary" or "the reversed".
func SameTimeOrderName(o string) string {
	if o == "" {
		return "the ordinary"
	}
	return "the " + o
}

// parseShard is ReadShard on the files' contents.
func parseShard(dir string, res, cfg []byte) (*Shard, error) {
	r, err := parseResult(filepath.Join(dir, ResultsJSON), res, true)
	if err != nil {
		return nil, err
	}
	if !json.Valid(cfg) {
		return nil, fmt.Errorf("%s is not valid JSON", filepath.Join(dir, ConfigJSON))
	}
	return &Shard{Dir: dir, Result: r, Config: cfg}, nil
}

// SameConfig checks that every shard was run with one configuration: their
// config.json files are identical (the resolved points after preset, --set
// and sweep, the overrides, the seed). A difference is reported at the
// first key path that differs, the resolved points first.
func SameConfig(shards []*Shard) error {
	for n := 1; n < len(shards); n++ {
		if bytes.Equal(shards[n].Config, shards[0].Config) {
			continue
		}
		where := "its bytes"
		if p, a, b, ok := jsonDiff(shards[0].Config, shards[n].Config); ok {
			where = fmt.Sprintf("%s: %s in shard 0, %s in shard %d", p, a, b, n)
		}
		return fmt.Errorf("shard %d (%s) was run with another configuration than shard 0 (%s): config.json differs at %s",
			n, shards[n].Dir, shards[0].Dir, where)
	}
	return nil
}

// jsonDiff finds the first key path at which two JSON documents differ,
// with both values; the "points" key (the resolved configuration) is
// compared first.
func jsonDiff(a, b []byte) (path, va, vb string, ok bool) {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "", "", "", false
	}
	return diffValue("", x, y)
}

func diffValue(path string, x, y any) (string, string, string, bool) {
	switch xv := x.(type) {
	case map[string]any:
		if yv, ok := y.(map[string]any); ok {
			return diffMaps(path, xv, yv)
		}
	case []any:
		if yv, ok := y.([]any); ok && len(xv) == len(yv) {
			for i := range xv {
				if p, a, b, ok := diffValue(joinKey(path, strconv.Itoa(i)), xv[i], yv[i]); ok {
					return p, a, b, true
				}
			}
			return "", "", "", false
		}
	}
	if reflect.DeepEqual(x, y) {
		return "", "", "", false
	}
	return path, short(x), short(y), true
}

func diffMaps(path string, x, y map[string]any) (string, string, string, bool) {
	keys := map[string]bool{}
	for k := range x {
		keys[k] = true
	}
	for k := range y {
		keys[k] = true
	}
	order := make([]string, 0, len(keys))
	for k := range keys {
		order = append(order, k)
	}
	sort.Slice(order, func(i, j int) bool {
		if (order[i] == "points") != (order[j] == "points") {
			return order[i] == "points"
		}
		return order[i] < order[j]
	})
	for _, k := range order {
		if p, a, b, ok := diffValue(joinKey(path, k), x[k], y[k]); ok {
			return p, a, b, true
		}
	}
	return "", "", "", false
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// short is a JSON value as a difference shows it (absent: "none").
func short(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
