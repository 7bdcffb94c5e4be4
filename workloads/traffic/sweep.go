package traffic

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/workloads"
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
	// Skip, if set, says which points (by index in the sweep) are done
	// already (a resumed sweep): they are not run, and count as done.
	Skip func(k int) bool
	// OnPoint, if set, receives each point (by index in the sweep) as it
	// finishes, one call at a time; the Result then holds no points, so a
	// sweep of any size keeps one point per job in memory. An error stops
	// the sweep.
	OnPoint func(k int, pr *results.PointResult) error
}

// RunSweep runs this shard's points of f on up to Jobs goroutines and
// returns them in sweep order. An interrupt stops the points in progress at
// their next slice and starts no more; the Result is then partial and holds
// the points that ran.
func RunSweep(f *workloads.File, opts SweepOptions) (*results.Result, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("workloads: %s: nothing to run", f.Path)
	}
	idx, err := workloads.ShardPoints(len(f.Points), opts.Shard, opts.Shards)
	if err != nil {
		return nil, err
	}
	skipped := 0
	if opts.Skip != nil {
		todo := idx[:0:0]
		for _, k := range idx {
			if !opts.Skip(k) {
				todo = append(todo, k)
			}
		}
		skipped, idx = len(idx)-len(todo), todo
	}
	jobs := max(opts.Jobs, 1)
	w0 := f.Points[0]
	res := &results.Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: f.Sweep}
	out := make([]*results.PointResult, len(idx))
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
				if err == nil && opts.OnPoint != nil {
					mu.Lock()
					errs[k] = opts.OnPoint(idx[k], pr)
					mu.Unlock()
					out[k] = &results.PointResult{Partial: pr.Partial}
				}
				if errs[k] != nil {
					stopped.Store(true)
					return
				}
				n := int(done.Add(1))
				if opts.Progress != nil {
					mu.Lock()
					opts.Progress(skipped+n, skipped+len(idx))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("point %d (%s): %w", idx[k], workloads.Label(f.Points[idx[k]].Point), err)
		}
	}
	for k := range idx {
		if out[k] == nil {
			res.Partial = true // never started: interrupted
			continue
		}
		if out[k].Partial {
			res.Partial = true
		}
		if opts.OnPoint == nil {
			res.Points = append(res.Points, *out[k])
		}
	}
	return res, nil
}
