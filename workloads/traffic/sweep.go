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
	idx, skipped, err := sweepTodo(len(f.Points), opts)
	if err != nil {
		return nil, err
	}
	r := &sweepRun{f: f, opts: opts, idx: idx, skipped: skipped,
		out: make([]*results.PointResult, len(idx)), errs: make([]error, len(idx))}
	var wg sync.WaitGroup
	for range min(max(opts.Jobs, 1), len(idx)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work()
		}()
	}
	wg.Wait()
	return r.result()
}

// sweepTodo is the indices of this shard's points still to run, and how
// many of the shard's points are done already (opts.Skip).
func sweepTodo(n int, opts SweepOptions) (idx []int, skipped int, err error) {
	idx, err = workloads.ShardPoints(n, opts.Shard, opts.Shards)
	if err != nil || opts.Skip == nil {
		return idx, 0, err
	}
	todo := idx[:0:0]
	for _, k := range idx {
		if !opts.Skip(k) {
			todo = append(todo, k)
		}
	}
	return todo, len(idx) - len(todo), nil
}

// sweepRun is one RunSweep's shared state: the points to run, and what
// each of them gave, by its place in idx.
type sweepRun struct {
	f       *workloads.File
	opts    SweepOptions
	idx     []int // the sweep's indices of the points to run
	skipped int   // points of the shard done already
	out     []*results.PointResult
	errs    []error
	next    atomic.Int64 // the place in idx of the next point to start
	done    atomic.Int64
	stopped atomic.Bool
	mu      sync.Mutex // serialises OnPoint and Progress calls
}

// interrupted reports whether the sweep stops: a point failed, or the
// user interrupted it (opts.Interrupted).
func (r *sweepRun) interrupted() bool {
	if r.stopped.Load() {
		return true
	}
	if r.opts.Interrupted != nil && r.opts.Interrupted() {
		r.stopped.Store(true)
		return true
	}
	return false
}

// work runs points, taking the next one to start, until none is left or
// the sweep stops.
func (r *sweepRun) work() {
	for {
		k := int(r.next.Add(1) - 1)
		if k >= len(r.idx) || r.interrupted() {
			return
		}
		if !r.run(k) {
			r.stopped.Store(true)
			return
		}
	}
}

// run runs the point at place k of idx, hands it to OnPoint and reports
// progress; it reports whether the point and its hand-over succeeded.
func (r *sweepRun) run(k int) bool {
	pr, err := RunPoint(r.f.Points[r.idx[k]], RunOptions{Interrupted: r.interrupted})
	r.out[k], r.errs[k] = pr, err
	if err == nil && r.opts.OnPoint != nil {
		r.mu.Lock()
		r.errs[k] = r.opts.OnPoint(r.idx[k], pr)
		r.mu.Unlock()
		r.out[k] = &results.PointResult{Partial: pr.Partial}
	}
	if r.errs[k] != nil {
		return false
	}
	n := int(r.done.Add(1))
	if r.opts.Progress != nil {
		r.mu.Lock()
		r.opts.Progress(r.skipped+n, r.skipped+len(r.idx))
		r.mu.Unlock()
	}
	return true
}

// result is the sweep's Result once every worker has returned: the first
// point's error, or the points in sweep order, partial when any is or when
// one never started.
func (r *sweepRun) result() (*results.Result, error) {
	for k, err := range r.errs {
		if err != nil {
			return nil, fmt.Errorf("point %d (%s): %w", r.idx[k], workloads.Label(r.f.Points[r.idx[k]].Point), err)
		}
	}
	w0 := r.f.Points[0]
	res := &results.Result{Workload: w0.Name, Seed: w0.Run.Seed, Sweep: r.f.Sweep}
	for k := range r.idx {
		if r.out[k] == nil {
			res.Partial = true // never started: interrupted
			continue
		}
		if r.out[k].Partial {
			res.Partial = true
		}
		if r.opts.OnPoint == nil {
			res.Points = append(res.Points, *r.out[k])
		}
	}
	return res, nil
}
