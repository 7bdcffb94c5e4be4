package workloads

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// SweepOptions control how the points of a sweep are run. None of them
// changes a point's results: every point is its own simulation with its own
// engine and seed, so a sweep gives the same Result whatever Jobs and
// however it is sharded.
type SweepOptions struct {
	Jobs        int // points run at once; < 1 means 1
	Shard       int // this shard, 0-based
	Shards      int // number of shards; < 2 means the whole sweep
	Interrupted func() bool
	// Progress is told how many of this shard's points are done.
	Progress func(done, total int)
}

// ShardsMax bounds --shard n.
const ShardsMax = 4096

// ShardPoints returns the indices of the points that shard i of n runs:
// i, i+n, i+2n, ... (round robin, so neighbouring points spread over shards).
func ShardPoints(total, shard, shards int) ([]int, error) {
	if shards < 2 {
		shards, shard = 1, 0
	}
	if shards > ShardsMax {
		return nil, fmt.Errorf("shards %d is above the limit of %d", shards, ShardsMax)
	}
	if shard < 0 || shard >= shards {
		return nil, fmt.Errorf("shard %d is out of range 0..%d", shard, shards-1)
	}
	var idx []int
	for i := shard; i < total; i += shards {
		idx = append(idx, i)
	}
	return idx, nil
}

// RunSweep runs this shard's points of f on up to Jobs goroutines and
// returns them in sweep order. An interrupt stops the points in progress at
// their next slice and starts no more; the Result is then partial and holds
// the points that ran.
func RunSweep(f *File, opts SweepOptions) (*Result, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("workloads: %s: nothing to run", f.Path)
	}
	idx, err := ShardPoints(len(f.Points), opts.Shard, opts.Shards)
	if err != nil {
		return nil, err
	}
	jobs := max(opts.Jobs, 1)
	w0 := f.Points[0]
	res := &Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: f.Sweep}
	out := make([]*PointResult, len(idx))
	errs := make([]error, len(idx))
	var next, done atomic.Int64
	var stopped atomic.Bool
	interrupted := func() bool {
		if stopped.Load() {
			return true
		}
		if opts.Interrupted != nil && opts.Interrupted() {
			stopped.Store(true)
			return true
		}
		return false
	}
	var mu sync.Mutex // serialises Progress calls
	var wg sync.WaitGroup
	for j := 0; j < min(jobs, len(idx)); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(idx) || interrupted() {
					return
				}
				pr, err := RunPoint(f.Points[idx[k]], RunOptions{Interrupted: interrupted})
				out[k], errs[k] = pr, err
				if err != nil {
					stopped.Store(true)
					return
				}
				n := int(done.Add(1))
				if opts.Progress != nil {
					mu.Lock()
					opts.Progress(n, len(idx))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("point %d (%s): %w", idx[k], Label(f.Points[idx[k]].Point), err)
		}
	}
	for k := range idx {
		if out[k] == nil {
			res.Partial = true // never started: interrupted
			continue
		}
		res.Points = append(res.Points, *out[k])
		if out[k].Partial {
			res.Partial = true
		}
	}
	return res, nil
}

// SweepLabels returns the label of every point of a sweep over axes, in
// sweep order (cartesian product, first axis outermost, or zipped), as the
// loader labels them. Without axes there is one unlabelled point.
func SweepLabels(axes []SweepAxis) []string {
	if len(axes) == 0 {
		return []string{""}
	}
	var out []string
	pt := make([]Override, len(axes))
	if axes[0].Zip {
		for j := range axes[0].Values {
			for a, ax := range axes {
				if j < len(ax.Values) {
					pt[a] = Override{Path: ax.Path, Value: ax.Values[j]}
				}
			}
			out = append(out, Label(pt))
		}
		return out
	}
	var rec func(int)
	rec = func(a int) {
		if a == len(axes) {
			out = append(out, Label(pt))
			return
		}
		for _, v := range axes[a].Values {
			pt[a] = Override{Path: axes[a].Path, Value: v}
			rec(a + 1)
		}
	}
	rec(0)
	return out
}

// MergeShards combines the results of the shards of one sweep into the
// result of the whole sweep, which is the same, byte for byte once encoded,
// as running the sweep unsharded. Every shard must come from the same
// workload, seed and sweep, be complete, and together they must hold every
// point exactly once.
func MergeShards(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("no shard results to merge")
	}
	first := parts[0]
	labels := SweepLabels(first.Sweep)
	pos := make(map[string]int, len(labels))
	for i, l := range labels {
		pos[l] = i
	}
	merged := make([]*PointResult, len(labels))
	for n, p := range parts {
		switch {
		case p.Workload != first.Workload:
			return nil, fmt.Errorf("shard %d is workload %q, shard 0 is %q", n, p.Workload, first.Workload)
		case p.Seed != first.Seed:
			return nil, fmt.Errorf("shard %d has seed %d, shard 0 has %d", n, p.Seed, first.Seed)
		case !reflect.DeepEqual(p.Sweep, first.Sweep):
			return nil, fmt.Errorf("shard %d sweeps other axes than shard 0", n)
		case p.Partial:
			return nil, fmt.Errorf("shard %d is partial (interrupted); rerun it", n)
		}
		for i := range p.Points {
			pt := &p.Points[i]
			k, ok := pos[pt.Label]
			if !ok {
				return nil, fmt.Errorf("shard %d holds point %q, which is not in the sweep", n, pt.Label)
			}
			if merged[k] != nil {
				return nil, fmt.Errorf("point %q appears in more than one shard", pt.Label)
			}
			merged[k] = pt
		}
	}
	out := &Result{Workload: first.Workload, Seed: first.Seed, Sweep: first.Sweep}
	var missing []string
	for k, pt := range merged {
		if pt == nil {
			missing = append(missing, fmt.Sprintf("%q", labels[k]))
			continue
		}
		out.Points = append(out.Points, *pt)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d of %d points are in no shard: %v", len(missing), len(labels), missing)
	}
	return out, nil
}
